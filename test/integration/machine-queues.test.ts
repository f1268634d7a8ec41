import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeHint, type Hint } from '#shared/messaging/hint.js';
import { deleteMachineQueue, ensureMachineQueue, queueName, sendHints } from '#shared/messaging/machine-queues.js';
import { tlsOnlyQueuePolicy } from '#shared/messaging/queue-policy.js';
import { useSqsServer } from '../support/sqs.js';

const sqsServer = useSqsServer();
const CONTROLLER = 'ctl';
let sqs: SQSClient;
beforeEach(() => {
  sqs = sqsServer.client();
});

/** Counts the commands a client sends, by name. */
function countCommands(client: SQSClient): Map<string, number> {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      counts.set(context.commandName ?? '', (counts.get(context.commandName ?? '') ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `count${Math.random()}` },
  );
  return counts;
}

async function receiveAll(client: SQSClient, url: string, expected: number): Promise<Hint[]> {
  const hints: Hint[] = [];
  while (hints.length < expected) {
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    if (Messages.length === 0) break;
    hints.push(...Messages.map((m) => decodeHint(m.Body)!));
  }
  return hints;
}

async function urlOf(client: SQSClient, machineId: string): Promise<string> {
  const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: queueName(CONTROLLER, 'default', machineId) }));
  return QueueUrl!;
}

describe('machine queues', () => {
  it('a hint received by an agent that died before deleting it comes back to the next long poll', async () => {
    const url = await ensureMachineQueue(sqs, CONTROLLER, 'default', '9');
    await sendHints(sqs, CONTROLLER, 'default', ['9'], { kind: 'unit', id: 'mysql/0' });
    // The killed agent's long poll took the hint and never deleted it.
    const taken = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    expect(taken.Messages).toHaveLength(1);
    // The restarted agent's first long poll (20 s) sees it again, well within its wait.
    const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
    expect(again.Messages?.map((m) => decodeHint(m.Body))).toEqual([{ kind: 'unit', id: 'mysql/0' }]);
  });

  it('creates a machine queue idempotently, long-polling, short-lived, with a dead-letter queue', async () => {
    const url = await ensureMachineQueue(sqs, CONTROLLER, 'default', '0');
    expect(await ensureMachineQueue(sqs, CONTROLLER, 'default', '0')).toBe(url);
    expect(await ensureMachineQueue(sqsServer.client(), CONTROLLER, 'default', '0')).toBe(url);
    const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
    expect(Attributes).toMatchObject({ ReceiveMessageWaitTimeSeconds: '20', MessageRetentionPeriod: '3600', VisibilityTimeout: '5' });
    const dlq = await sqs.send(new GetQueueUrlCommand({ QueueName: `drover-${CONTROLLER}-dlq` }));
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes
      ?.QueueArn;
    expect(JSON.parse(Attributes.RedrivePolicy ?? '{}')).toMatchObject({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 });
  });

  it('encrypts the machine queue and its dead-letter queue, and makes both refuse anything but TLS', async () => {
    const url = await ensureMachineQueue(sqs, CONTROLLER, 'default', '10');
    const dlq = (await sqs.send(new GetQueueUrlCommand({ QueueName: `drover-${CONTROLLER}-dlq` }))).QueueUrl!;
    for (const queue of [url, dlq]) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ['QueueArn', 'SqsManagedSseEnabled', 'Policy'] }),
      );
      expect(Attributes.SqsManagedSseEnabled).toBe('true');
      // The policy names the queue's own ARN: a policy naming another resource would guard nothing.
      expect(JSON.parse(Attributes.Policy ?? '{}')).toEqual(JSON.parse(tlsOnlyQueuePolicy(Attributes.QueueArn!)));
    }
  });

  it('converges queues an older drover made without the TLS-only policy, keeping their URLs', async () => {
    // Its own controller: this file's other tests have made `ctl`'s dead-letter queue already.
    const controller = 'older';
    const dlqName = `drover-${controller}-dlq`;
    // What ensuring made before queues were TLS-only, with a visibility timeout since changed. SQS
    // encrypts new queues with SSE-SQS by default, so such a queue has it already (and fauxqs
    // cannot turn it on later: it refuses SetQueueAttributes SqsManagedSseEnabled).
    const dlq = (
      await sqs.send(
        new CreateQueueCommand({ QueueName: dlqName, Attributes: { MessageRetentionPeriod: '86400', SqsManagedSseEnabled: 'true' } }),
      )
    ).QueueUrl!;
    const old = await sqs.send(
      new CreateQueueCommand({
        QueueName: queueName(controller, 'default', '11'),
        Attributes: {
          ReceiveMessageWaitTimeSeconds: '20',
          MessageRetentionPeriod: '3600',
          VisibilityTimeout: '30',
          SqsManagedSseEnabled: 'true',
        },
      }),
    );
    const url = await ensureMachineQueue(sqs, controller, 'default', '11');
    expect(url).toBe(old.QueueUrl);
    for (const queue of [url, dlq]) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ['QueueArn', 'SqsManagedSseEnabled', 'Policy'] }),
      );
      expect(Attributes.SqsManagedSseEnabled).toBe('true');
      expect(JSON.parse(Attributes.Policy ?? '{}')).toEqual(JSON.parse(tlsOnlyQueuePolicy(Attributes.QueueArn!)));
    }
    const { Attributes: machine = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['VisibilityTimeout'] }),
    );
    expect(machine.VisibilityTimeout).toBe('5');
    // And the converged queue still carries hints.
    expect(await sendHints(sqs, controller, 'default', ['11'], { kind: 'machine', id: '11' })).toEqual({ sent: 1, failures: [] });
    expect(await receiveAll(sqs, url, 1)).toEqual([{ kind: 'machine', id: '11' }]);
  });

  it("leaves a dead-letter queue's existing policy alone: on AWS the stack owns it", async () => {
    const controller = 'stack-made';
    const dlqName = `drover-${controller}-dlq`;
    const dlq = (
      await sqs.send(
        new CreateQueueCommand({ QueueName: dlqName, Attributes: { MessageRetentionPeriod: '86400', SqsManagedSseEnabled: 'true' } }),
      )
    ).QueueUrl!;
    const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const stacks = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'FromTheStack',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'sqs:*',
          Resource: arn,
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
      ],
    });
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: dlq, Attributes: { Policy: stacks } }));
    await ensureMachineQueue(sqs, controller, 'default', '12');
    const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ['Policy'] }));
    expect(JSON.parse(Attributes.Policy!)).toEqual(JSON.parse(stacks));
  });

  it('re-creates a queue deleted behind its back and still delivers the hint', async () => {
    await ensureMachineQueue(sqs, CONTROLLER, 'default', '1');
    await sendHints(sqs, CONTROLLER, 'default', ['1'], { kind: 'machine', id: '1' }); // caches the URL
    const other = sqsServer.client();
    await other.send(new DeleteQueueCommand({ QueueUrl: await urlOf(other, '1') }));

    const result = await sendHints(sqs, CONTROLLER, 'default', ['1'], { kind: 'unit', id: 'mysql/0' });
    expect(result).toEqual({ sent: 1, failures: [] });
    expect(await receiveAll(other, await urlOf(other, '1'), 1)).toEqual([{ kind: 'unit', id: 'mysql/0' }]);
  });

  it('creates the queue of a machine that never had one on the first hint', async () => {
    expect(await sendHints(sqs, CONTROLLER, 'default', ['2'], { kind: 'machine', id: '2' })).toEqual({ sent: 1, failures: [] });
    expect(await receiveAll(sqs, await urlOf(sqs, '2'), 1)).toEqual([{ kind: 'machine', id: '2' }]);
  });

  it('sends hints in batches of ten, and an agent long-polling receives them as they arrive', async () => {
    const url = await ensureMachineQueue(sqs, CONTROLLER, 'default', '3');
    const agent = sqsServer.client();
    // The queue's ReceiveMessageWaitTimeSeconds (20 s) applies: the receive waits for the send.
    const started = Date.now();
    const waiting = agent.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
    await new Promise((r) => setTimeout(r, 200));
    const counts = countCommands(sqs);
    const hints: Hint[] = Array.from({ length: 25 }, (_, i) => ({ kind: 'unit', id: `app/${i}` }));
    expect(await sendHints(sqs, CONTROLLER, 'default', ['3'], hints)).toEqual({ sent: 25, failures: [] });
    expect(counts.get('SendMessageBatchCommand')).toBe(3);
    const first = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000);
    const received = [
      ...(first.Messages ?? []).map((m) => decodeHint(m.Body)!),
      ...(await receiveAll(agent, url, 25 - (first.Messages?.length ?? 0))),
    ];
    expect(received.map((h) => h.id).sort()).toEqual(hints.map((h) => h.id).sort());
  });

  it('reports one machine that cannot be reached and still delivers to the others', async () => {
    const broken = queueName(CONTROLLER, 'default', '5');
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { QueueUrl?: string };
        if (context.commandName === 'SendMessageBatchCommand' && input.QueueUrl?.endsWith(`/${broken}`)) throw new Error('injected outage');
        return next(args);
      },
      { step: 'initialize', name: 'breakMachine5' },
    );
    const result = await sendHints(sqs, CONTROLLER, 'default', ['4', '5', '6'], { kind: 'resync', id: '' });
    expect(result.sent).toBe(2);
    expect(result.failures).toEqual([{ machineId: '5', error: 'Error: injected outage' }]);
    expect(await receiveAll(sqs, await urlOf(sqs, '6'), 1)).toEqual([{ kind: 'resync', id: '' }]);
  });

  it('deletes a machine queue, and tolerates one already gone', async () => {
    await ensureMachineQueue(sqs, CONTROLLER, 'default', '7');
    await deleteMachineQueue(sqs, CONTROLLER, 'default', '7');
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: queueName(CONTROLLER, 'default', '7') }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
    await expect(deleteMachineQueue(sqs, CONTROLLER, 'default', '7')).resolves.toBeUndefined();
    await expect(deleteMachineQueue(sqs, CONTROLLER, 'default', 'never')).resolves.toBeUndefined();
  });
});
