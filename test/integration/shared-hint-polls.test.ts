import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedHintPolls } from '../support/agent-simulator/shared-hint-polls.js';
import { encodeHint } from '#shared/messaging/hint.js';
import { ensureMachineQueue, sendHints } from '#shared/messaging/machine-queues.js';
import { useSqsServer } from '../support/sqs.js';

const sqsServer = useSqsServer();
let polls: SharedHintPolls | undefined;

afterEach(async () => {
  await polls?.stop();
  polls = undefined;
});

/** A simulated agent's receive through `polls`, as its HintReceiver makes it. */
function receive(queueUrl: string, signal: AbortSignal): Promise<Message[]> {
  return polls!
    .clientFor(sqsServer.client())
    .send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 20 }), { abortSignal: signal })
    .then((out) => out.Messages ?? []);
}

describe('shared hint polls of the agent simulator', () => {
  it('poll a waiting queue as soon as a watched client sends to it, long before the idle interval', async () => {
    const sender = sqsServer.client();
    const queueUrl = await ensureMachineQueue(sender, 'polls-test', 'default', '0');
    polls = new SharedHintPolls({ sqs: sqsServer.client(), idleIntervalMs: 60_000, firstIntervalMs: 60_000 });
    polls.watchSends(sender);
    const aborted = new AbortController();
    const received = receive(queueUrl, aborted.signal);
    // The first poll (at once) finds the queue empty; the next is a minute away.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(polls.receives).toBe(1);

    const sentAt = Date.now();
    await sendHints(sender, 'polls-test', 'default', ['0'], { kind: 'unit', id: 'app/0' });
    const messages = await received;

    expect(messages.map((m) => m.Body)).toEqual([encodeHint({ kind: 'unit', id: 'app/0' })]);
    expect(Date.now() - sentAt).toBeLessThan(10_000);
    expect(polls.receives).toBe(2);
    aborted.abort();
  });

  it('leave a queue unpolled until its interval when the send went through a client nobody watches', async () => {
    const unwatched = sqsServer.client();
    const queueUrl = await ensureMachineQueue(unwatched, 'polls-test', 'default', '1');
    polls = new SharedHintPolls({ sqs: sqsServer.client(), idleIntervalMs: 60_000, firstIntervalMs: 60_000 });
    polls.watchSends(sqsServer.client());
    const aborted = new AbortController();
    const received = receive(queueUrl, aborted.signal).catch(() => 'aborted' as const);
    await new Promise((resolve) => setTimeout(resolve, 300));

    await sendHints(unwatched, 'polls-test', 'default', ['1'], { kind: 'unit', id: 'app/1' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(polls.receives).toBe(1);
    aborted.abort();
    expect(await received).toBe('aborted');
  });
});
