// Hints misdelivered on purpose, between the notifier and SQS (the SDK's middleware stack, as the
// fault seam does): every hint sent twice, or every hint held back until the model is otherwise
// quiet and then sent in reverse order. SQS itself promises neither once nor in order for a
// standard queue (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/standard-queues.html),
// so agents must make nothing of either.
import { SendMessageBatchCommand, type SendMessageBatchCommandInput, type SQSClient } from '@aws-sdk/client-sqs';

export type HintMode = 'duplicate' | 'delay-and-reorder';

export class HintChaos {
  private held: { client: SQSClient; input: SendMessageBatchCommandInput }[] = [];
  /** Hint messages the notifier asked to send, and messages actually sent. */
  asked = 0;
  sent = 0;

  constructor(readonly mode: HintMode) {}

  attach(client: SQSClient): SQSClient {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'SendMessageBatchCommand') return next(args);
        const input = (args as { input: SendMessageBatchCommandInput }).input;
        const entries = input.Entries ?? [];
        this.asked += entries.length;
        if (this.mode === 'delay-and-reorder' && !releasing.has(client)) {
          this.held.push({ client, input: { ...input, Entries: [...entries] } });
          // What SQS answers to an accepted batch: the notifier believes it sent them.
          return {
            output: {
              Successful: entries.map((e) => ({ Id: e.Id, MessageId: `held-${e.Id}`, MD5OfMessageBody: '' })),
              Failed: [],
              $metadata: {},
            },
            response: {},
          } as never;
        }
        if (this.mode === 'duplicate') input.Entries = [...entries, ...entries.map((e) => ({ ...e, Id: `${e.Id}-again` }))];
        this.sent += input.Entries?.length ?? 0;
        return next(args);
      },
      { step: 'initialize', name: 'hintChaos', priority: 'high' },
    );
    return client;
  }

  /** Sends what was held back, last first, each batch's entries reversed too. */
  async release(): Promise<void> {
    const held = this.held.reverse();
    this.held = [];
    for (const { client, input } of held) {
      releasing.add(client);
      try {
        const entries = [...(input.Entries ?? [])].reverse();
        this.sent += entries.length;
        await client.send(new SendMessageBatchCommand({ ...input, Entries: entries }));
      } catch {
        // The machine's queue was removed meanwhile: the hint had no one left to tell.
      } finally {
        releasing.delete(client);
      }
    }
  }
}

/** Clients sending held hints now: those sends go through. */
const releasing = new Set<SQSClient>();
