// One SQS queue per machine: the machine agent long-polls it for hints (shared/messaging/hint.ts).
//
// Queues are disposable like the hints in them. Creating one is idempotent, so whoever needs a
// queue (provisioner, notifier, the agent itself after a local restart emptied the server) just
// ensures it; a missing queue is re-created rather than treated as an error.
//
// Queue URLs are always the ones the server returned (CreateQueue/GetQueueUrl), passed back
// verbatim: the local server identifies a queue by its exact URL, and the client's `endpoint`
// (shared/messaging/sqs-client.ts) — not the URL's host — decides where requests go.
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type QueueAttributeName,
  SendMessageBatchCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { encodeHint, type Hint } from './hint.js';
import { tlsOnlyQueuePolicy } from './queue-policy.js';
import { deadLetterQueueName, queueName } from './queue-names.js';

export { queueName, deadLetterQueueName } from './queue-names.js';

/** Agents long-poll: one request waits up to 20 s for a hint instead of spinning. */
const RECEIVE_WAIT_SECONDS = '20';
/** An hour: an older hint is worthless, the agent's periodic resync has long covered it. */
const HINT_RETENTION_SECONDS = '3600';
/**
 * Agents delete a hint as soon as they receive it. One received by an agent that died before
 * deleting it (a long poll still open when it was killed) is due again after this, not after
 * SQS's default 30 s: the restarted agent gets it within seconds.
 */
const VISIBILITY_TIMEOUT_SECONDS = '5';
/** A day in the dead-letter queue, to see which hints an agent keeps choking on. */
const DEAD_LETTER_RETENTION_SECONDS = '86400';
/** Receives before a hint goes to the dead-letter queue instead of crashing its agent forever. */
const MAX_RECEIVE_COUNT = 5;
/**
 * Encrypted at rest with SQS-owned keys (SSE-SQS): no key to pay for and no kms: grant for the
 * functions or the agents, as the dead-letter queue in infra/machines.ts.
 */
const ENCRYPTED = { SqsManagedSseEnabled: 'true' };
/** SendMessageBatch takes at most 10 entries. */
const BATCH_SIZE = 10;
/**
 * Sends in flight at once: an application-wide change on 100,000 units is 100,000 sends, which
 * at ~10 ms each must fit the notifier's 60 s (docs/architecture.md, "The notifier's reads");
 * kept under the SDK's 50 sockets per client, so none waits for a socket.
 */
const DEFAULT_CONCURRENCY = 48;

// Resolved queue URLs, per client (a client is bound to one endpoint). Entries are dropped when
// a send finds the queue gone, so a stale URL costs one failed call, never a lost machine.
const urlCache = new WeakMap<SQSClient, Map<string, string>>();
function cacheOf(sqs: SQSClient): Map<string, string> {
  let cache = urlCache.get(sqs);
  if (!cache) urlCache.set(sqs, (cache = new Map()));
  return cache;
}

/** The error's names: the SDK's class name and, for query-compatible errors, its legacy code. */
function errorNames(e: unknown): string[] {
  if (typeof e !== 'object' || e === null) return [];
  const { name, Code } = e as { name?: unknown; Code?: unknown };
  return [name, Code].filter((n): n is string => typeof n === 'string');
}

const isError = (e: unknown, ...names: string[]) => errorNames(e).some((n) => names.includes(n));

/** QueueDoesNotExist, under its JSON-protocol name or its legacy query-protocol code. */
export const isQueueMissing = (e: unknown) => isError(e, 'QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue');

/**
 * CreateQueue's "exists with other attributes": the SDK's class name, AWS's legacy code, or the
 * local server's (fauxqs prefixes its legacy codes with `AWS.SimpleQueueService.`).
 */
const isQueueNameTaken = (e: unknown) => isError(e, 'QueueNameExists', 'QueueAlreadyExists', 'AWS.SimpleQueueService.QueueNameExists');

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/**
 * CreateQueue is idempotent only while the attributes are identical; if they differ (an older
 * drover made the queue, e.g. before queues were encrypted and TLS-only), converge the existing
 * queue to ours instead of failing.
 */
async function createOrConverge(sqs: SQSClient, name: string, attributes: Record<string, string>): Promise<string> {
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    if (!QueueUrl) throw new Error(`CreateQueue ${name} returned no URL`);
    return QueueUrl;
  } catch (e) {
    if (!isQueueNameTaken(e)) throw e;
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    if (!QueueUrl) throw new Error(`GetQueueUrl ${name} returned no URL`);
    // Only what differs: a setting the queue already has is not rewritten (and the local server,
    // fauxqs, refuses to set SqsManagedSseEnabled at all, though it takes it at creation).
    const names = Object.keys(attributes) as QueueAttributeName[];
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: names }));
    const current: Record<string, string | undefined> = Attributes ?? {};
    const differing = Object.fromEntries(Object.entries(attributes).filter(([key, value]) => current[key] !== value));
    if (Object.keys(differing).length > 0) await sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: differing }));
    return QueueUrl;
  }
}

/** The controller's dead-letter queue, created if missing; returns its ARN for redrive policies. */
async function ensureDeadLetterQueue(sqs: SQSClient, controllerId: string): Promise<string> {
  // Not cached: a redrive policy naming a deleted queue is refused, and this runs only when a
  // machine queue is (re)created.
  const url = await createOrConverge(sqs, deadLetterQueueName(controllerId), {
    MessageRetentionPeriod: DEAD_LETTER_RETENTION_SECONDS,
    ...ENCRYPTED,
  });
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn', 'Policy'] }));
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`dead-letter queue of controller ${controllerId} has no ARN`);
  // Its ARN is known only once it exists, so a queue made here gets its TLS-only policy in a
  // second call; one left without it (a process that died in between) gets it on the next ensure.
  // A policy already there is left alone: on AWS the stack owns this queue and its policy.
  if (!Attributes?.Policy)
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy: tlsOnlyQueuePolicy(arn) } }));
  return arn;
}

/**
 * A queue's ARN from its sibling's: queues of one client share partition, region and account
 * (arn:<partition>:sqs:<region>:<account>:<name>), so the machine queue's ARN is known before it
 * exists and its policy goes into the CreateQueue that makes it — no moment without it.
 */
function siblingArn(arn: string, name: string): string {
  return `${arn.slice(0, arn.lastIndexOf(':') + 1)}${name}`;
}

/** Creates the machine's queue (and the controller's dead-letter queue) if missing; returns its URL. `model`: the machine's model's key. */
export async function ensureMachineQueue(sqs: SQSClient, controllerId: string, model: string, machineId: string): Promise<string> {
  const name = queueName(controllerId, model, machineId);
  const deadLetterTargetArn = await ensureDeadLetterQueue(sqs, controllerId);
  const url = await createOrConverge(sqs, name, {
    ReceiveMessageWaitTimeSeconds: RECEIVE_WAIT_SECONDS,
    MessageRetentionPeriod: HINT_RETENTION_SECONDS,
    VisibilityTimeout: VISIBILITY_TIMEOUT_SECONDS,
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn, maxReceiveCount: MAX_RECEIVE_COUNT }),
    ...ENCRYPTED,
    Policy: tlsOnlyQueuePolicy(siblingArn(deadLetterTargetArn, name)),
  });
  cacheOf(sqs).set(name, url);
  return url;
}

/** The URL of an existing machine queue, or undefined if there is none. */
async function lookUpQueue(sqs: SQSClient, name: string): Promise<string | undefined> {
  const cached = cacheOf(sqs).get(name);
  if (cached) return cached;
  try {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    if (QueueUrl) cacheOf(sqs).set(name, QueueUrl);
    return QueueUrl;
  } catch (e) {
    if (isQueueMissing(e)) return undefined;
    throw e;
  }
}

/** Deletes the machine's queue (its machine is gone); a queue already gone is fine. */
export async function deleteMachineQueue(sqs: SQSClient, controllerId: string, model: string, machineId: string): Promise<void> {
  const name = queueName(controllerId, model, machineId);
  const url = await lookUpQueue(sqs, name);
  cacheOf(sqs).delete(name);
  if (!url) return;
  try {
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
  } catch (e) {
    if (!isQueueMissing(e)) throw e;
  }
}

export interface HintFailure {
  machineId: string;
  error: string;
}

export interface SendHintsResult {
  /** Messages accepted by SQS. */
  sent: number;
  failures: HintFailure[];
}

async function sendBatches(sqs: SQSClient, url: string, bodies: string[]): Promise<number> {
  let sent = 0;
  for (let i = 0; i < bodies.length; i += BATCH_SIZE) {
    const entries = bodies.slice(i, i + BATCH_SIZE).map((body, j) => ({ Id: String(j), MessageBody: body }));
    const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    const failed = out.Failed ?? [];
    if (failed.length > 0)
      throw new Error(`${failed.length} of ${entries.length} hints refused: ${failed[0]?.Code} ${failed[0]?.Message ?? ''}`.trim());
    sent += out.Successful?.length ?? entries.length;
  }
  return sent;
}

/**
 * Told of a machine queue this send had to create: a new queue carries no instance tag, so its
 * agent could not receive from it (queue-instance-tag.ts) until someone binds it.
 */
export type OnQueueCreated = (machineId: string, queueUrl: string) => Promise<void>;

async function sendToMachine(
  sqs: SQSClient,
  controllerId: string,
  model: string,
  machineId: string,
  bodies: string[],
  onCreated?: OnQueueCreated,
): Promise<number> {
  const name = queueName(controllerId, model, machineId);
  let recreated = false;
  let url = await lookUpQueue(sqs, name);
  if (!url) {
    url = await ensureMachineQueue(sqs, controllerId, model, machineId);
    recreated = true;
    await onCreated?.(machineId, url);
  }
  try {
    return await sendBatches(sqs, url, bodies);
  } catch (e) {
    // The cached URL outlived its queue (deleted, or the local server restarted): re-create
    // once and resend; a second miss is a real failure for the caller to retry.
    if (!isQueueMissing(e) || recreated) throw e;
    cacheOf(sqs).delete(name);
    url = await ensureMachineQueue(sqs, controllerId, model, machineId);
    await onCreated?.(machineId, url);
    return sendBatches(sqs, url, bodies);
  }
}

/**
 * Sends the hints to the queue of each of the model's machines (`model`: its key), a few machines at a time. One machine's failure never
 * stops the others and never throws: it is returned, so the caller can retry what failed.
 */
export function sendHints(
  sqs: SQSClient,
  controllerId: string,
  model: string,
  machineIds: Iterable<string>,
  hints: Hint | Hint[],
  options: { concurrency?: number } = {},
): Promise<SendHintsResult> {
  const each = Array.isArray(hints) ? hints : [hints];
  return sendHintsEach(sqs, controllerId, model, new Map([...machineIds].map((m) => [m, each])), options);
}

/**
 * Sends each machine its own hints, all of a machine's in one SendMessageBatch (up to ten), a few
 * machines at a time. Never throws: a machine that could not be hinted is returned.
 */
export async function sendHintsEach(
  sqs: SQSClient,
  controllerId: string,
  model: string,
  hintsByMachine: ReadonlyMap<string, readonly Hint[]>,
  options: { concurrency?: number; onCreated?: OnQueueCreated } = {},
): Promise<SendHintsResult> {
  const machines = [...hintsByMachine].filter(([, hints]) => hints.length > 0);
  const result: SendHintsResult = { sent: 0, failures: [] };
  let next = 0;
  const worker = async () => {
    while (next < machines.length) {
      const [machineId, hints] = machines[next++]!;
      try {
        // Await first: `sent += await ...` would read `sent` before the await and lose updates.
        const sent = await sendToMachine(sqs, controllerId, model, machineId, hints.map(encodeHint), options.onCreated);
        result.sent += sent;
      } catch (e) {
        result.failures.push({ machineId, error: describe(e) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, machines.length) }, worker));
  return result;
}
