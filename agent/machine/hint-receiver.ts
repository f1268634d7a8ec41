// The machine agent's ear: a long poll of its SQS queue. "Cost: an idle agent makes no DynamoDB
// reads and at most one SQS receive per 20 s": one ReceiveMessage waits up to 20 s for a hint,
// and nothing else happens until one comes. Hints name an entity and nothing more
// (shared/messaging/hint.ts); a message that is not a hint is taken as "look at everything".
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { decodeHint, type Hint } from '../../shared/messaging/hint.js';
import { isQueueMissing } from '../../shared/messaging/machine-queues.js';
import type { AgentLog } from '../log/agent-log.js';

export const LONG_POLL_SECONDS = 20;
const MAX_ERROR_DELAY_MS = 60_000;

export interface HintReceiverOptions {
  sqs: SQSClient;
  queueUrl: string;
  onHints: (hints: Hint[]) => void;
  log: AgentLog;
  /** A queue that vanished (a restarted local SQS server) is re-created; returns its URL. */
  recreateQueue?: () => Promise<string>;
}

export class HintReceiver {
  private readonly abort = new AbortController();
  private loop?: Promise<void>;
  private queueUrl: string;

  constructor(private readonly options: HintReceiverOptions) {
    this.queueUrl = options.queueUrl;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { sqs, log } = this.options;
    let errorDelay = 1_000;
    while (!this.abort.signal.aborted) {
      try {
        const out = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: this.queueUrl, WaitTimeSeconds: LONG_POLL_SECONDS, MaxNumberOfMessages: 10 }),
          { abortSignal: this.abort.signal },
        );
        errorDelay = 1_000;
        const messages = out.Messages ?? [];
        if (messages.length === 0) continue;
        // Deleted before acting: a hint is only a nudge, and the resync covers one lost in a crash.
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
          { abortSignal: this.abort.signal },
        );
        this.options.onHints(messages.map((m) => decodeHint(m.Body) ?? { kind: 'resync', id: '' }));
      } catch (e) {
        if (this.abort.signal.aborted) return;
        if (isQueueMissing(e) && this.options.recreateQueue) {
          try {
            this.queueUrl = await this.options.recreateQueue();
            log.log(undefined, 'WARNING', 'juju.worker.hints', 'the machine queue was missing and has been re-created');
            // Hints sent meanwhile were lost with the old queue.
            this.options.onHints([{ kind: 'resync', id: '' }]);
            continue;
          } catch (again) {
            e = again;
          }
        }
        log.log(undefined, 'WARNING', 'juju.worker.hints', `cannot receive hints: ${(e as Error).message}; retrying in ${errorDelay} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, errorDelay);
          this.abort.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        errorDelay = Math.min(MAX_ERROR_DELAY_MS, errorDelay * 2);
      }
    }
  }
}
