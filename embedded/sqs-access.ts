// Who may use the local controller's SQS server. fauxqs, like DynamoDB Local, accepts any
// credentials, so any local user could read the agents' hints or send them made-up ones. The
// server lets through only requests whose SigV4 Authorization names one of two kinds of access key:
// - the controller's own (`sqsAccessKey` in secrets.json): every queue, every action;
// - a machine agent's, `agent:<queue>:<mac>`, the HMAC of its queue's name under the controller's
//   key: that queue (agents receive and delete their hints, and make their queue again when they
//   find it gone), and of the controller's dead-letter queue only what making a queue needs (its
//   redrive policy names the dead-letter queue's ARN: shared/messaging/machine-queues.ts). An
//   agent's key reads no other machine's hints and sends no hint at all.
// Keys are compared in constant time. What is checked is the key the request names, not its
// signature: docs/reliability.md, "What isolation remains", says why and what that leaves.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { queueNameOfUrl } from '#shared/messaging/sqs-client.js';

/** An agent's key to its own queue, handed to it by the local provider. */
export function agentSqsAccessKey(controllerKey: string, queueName: string): string {
  return `agent:${queueName}:${createHmac('sha256', controllerKey).update(`sqs-queue:${queueName}`).digest('hex')}`;
}

/** The access key of a SigV4 Authorization header (`... Credential=<key>/<date>/...`). */
export function accessKeyOf(authorization: string | undefined): string | undefined {
  return /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1];
}

const same = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The queue a request names: by URL (`http://sqs.<region>.localhost:<port>/<account>/<name>`) or by name. */
const queueNameOf = (body: Record<string, unknown>): string | undefined => {
  if (typeof body.QueueUrl === 'string') return queueNameOfUrl(body.QueueUrl);
  return typeof body.QueueName === 'string' ? body.QueueName : undefined;
};

/** The server's side of it: the controller's key, and the one queue every agent's queue names. */
export interface SqsAccess {
  key: string;
  deadLetterQueue: string;
}

/** What an agent's key may do to the dead-letter queue: see it exists, as ensureMachineQueue does. */
const DEAD_LETTER_ACTIONS = new Set(['CreateQueue', 'GetQueueUrl', 'GetQueueAttributes', 'SetQueueAttributes']);

export type SqsRefusal = { status: 403; type: string; message: string };

const UNKNOWN_KEY: SqsRefusal = {
  status: 403,
  type: 'com.amazon.coral.service#UnrecognizedClientException',
  message: 'The security token included in the request is invalid.',
};

/**
 * Why a request is refused, in SQS's words, or undefined when it may go on. `target` is the JSON
 * protocol's `X-Amz-Target` (`AmazonSQS.<Action>`), `body` the parsed request (the JSON
 * protocol's object; anything else for the other routes fauxqs has).
 */
export function sqsRefusal(
  access: SqsAccess,
  request: { authorization: string | undefined; target: string | undefined; body: unknown },
): SqsRefusal | undefined {
  const key = accessKeyOf(request.authorization);
  if (key === undefined) return UNKNOWN_KEY;
  if (same(key, access.key)) return undefined;
  const agent = /^agent:([\w-]{1,80}):[0-9a-f]{64}$/.exec(key);
  if (!agent || !same(key, agentSqsAccessKey(access.key, agent[1]!))) return UNKNOWN_KEY;
  const body = request.body;
  const queue = body !== null && typeof body === 'object' ? queueNameOf(body as Record<string, unknown>) : undefined;
  if (queue === agent[1]) return undefined;
  const action = request.target?.startsWith('AmazonSQS.') ? request.target.slice('AmazonSQS.'.length) : undefined;
  if (queue === access.deadLetterQueue && action !== undefined && DEAD_LETTER_ACTIONS.has(action)) return undefined;
  return {
    status: 403,
    type: 'com.amazon.coral.service#AccessDeniedException',
    message: `User: agent of queue ${agent[1]} is not authorized to access queue ${queue ?? '(none named)'}`,
  };
}
