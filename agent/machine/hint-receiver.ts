// The machine agent's ear: a long poll of its SQS queue. An idle agent makes no DynamoDB reads and
// at most one SQS receive per 20 s (docs/agents.md, "Cost"): one ReceiveMessage waits up to 20 s
// for a hint, and nothing else happens until one comes. Hints name an entity and nothing more
// (shared/messaging/hint.ts); a message that is not a hint is taken as "look at everything".
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { decodeHint, type Hint } from '#shared/messaging/hint.js';
import { isQueueMissing } from '#shared/messaging/machine-queues.js';
import { systemClock, type Clock } from '../clock.js';
import type { AgentLog } from '../log/agent-log.js';
import { errorMessage } from '#shared/domain/errors.js';

export const LONG_POLL_SECONDS = 20;
/**
 * Failed receives are retried after 0.5 s, doubling to at most 4 s: a local controller restarts
 * in seconds, and its agents must hear of changes within seconds after it (the hints sent while
 * the queue was unreachable are made up by a resync). On AWS a receive fails only in an outage,
 * where 15 failed requests a minute cost nothing.
 */
const FIRST_ERROR_DELAY_MS = 500;
const MAX_ERROR_DELAY_MS = 4_000;

export interface HintReceiverOptions {
  sqs: SQSClient;
  queueUrl: string;
  onHints: (hints: Hint[]) => void;
  log: AgentLog;
  /** A queue that vanished (a restarted local SQS server) is re-created, through this client; returns its URL. */
  recreateQueue?: (sqs: SQSClient) => Promise<string>;
  /**
   * After a failed receive: a client for the SQS server's new endpoint if it moved (a local
   * controller that restarted and could not have its old port back), else undefined.
   */
  moved?: () => SQSClient | undefined;
  clock?: Clock;
}

export class HintReceiver {
  private readonly abort = new AbortController();
  private loop?: Promise<void>;
  private queueUrl: string;
  private sqs: SQSClient;
  private markReady!: () => void;
  /**
   * Resolves once the first receive has returned (and its hints were handed on), or failed. That
   * receive does not wait: it takes the hints sent before the agent started, so that the agent's
   * first view, read after it, covers them, and they cost no second read.
   */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));
  private received = false;

  private receivedOnce(): void {
    this.received = true;
    this.markReady();
  }

  constructor(private readonly options: HintReceiverOptions) {
    this.queueUrl = options.queueUrl;
    this.sqs = options.sqs;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    this.markReady();
  }

  private async run(): Promise<void> {
    const { log } = this.options;
    let errorDelay = FIRST_ERROR_DELAY_MS;
    // Set by a failed receive: hints sent while this agent could not receive may be lost (a
    // restarted local SQS server starts empty), so the first receive that works again resyncs.
    let missedHints = false;
    while (!this.abort.signal.aborted) {
      try {
        const out = await this.sqs.send(
          // After a failure, a receive that returns at once: the resync below is due now, not
          // after a long poll that may wait 20 s for nothing.
          new ReceiveMessageCommand({
            QueueUrl: this.queueUrl,
            WaitTimeSeconds: missedHints || !this.received ? 0 : LONG_POLL_SECONDS,
            MaxNumberOfMessages: 10,
          }),
          { abortSignal: this.abort.signal },
        );
        errorDelay = FIRST_ERROR_DELAY_MS;
        if (missedHints) {
          missedHints = false;
          log.log(undefined, 'INFO', 'juju.worker.hints', 'receiving hints again; resyncing for any sent meanwhile');
          this.options.onHints([{ kind: 'resync', id: '' }]);
        }
        const messages = out.Messages ?? [];
        if (messages.length === 0) {
          this.receivedOnce();
          continue;
        }
        // Deleted before acting: a hint is only a nudge, and the resync covers one lost in a crash.
        await this.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
          { abortSignal: this.abort.signal },
        );
        this.options.onHints(messages.map((m) => decodeHint(m.Body) ?? { kind: 'resync', id: '' }));
        this.receivedOnce();
      } catch (e) {
        this.receivedOnce();
        if (this.abort.signal.aborted) return;
        missedHints = true;
        const moved = isQueueMissing(e) ? undefined : this.options.moved?.();
        if (moved) this.sqs = moved;
        if ((moved || isQueueMissing(e)) && this.options.recreateQueue) {
          try {
            this.queueUrl = await this.options.recreateQueue(this.sqs);
            log.log(
              undefined,
              'WARNING',
              'juju.worker.hints',
              moved
                ? 'the SQS server moved; receiving hints from its new endpoint'
                : 'the machine queue was missing and has been re-created',
            );
            continue;
          } catch (again) {
            e = again;
          }
        }
        log.log(undefined, 'WARNING', 'juju.worker.hints', `cannot receive hints: ${errorMessage(e)}; retrying in ${errorDelay} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            timer.cancel();
            resolve();
          };
          // Removed when the pause ends, or a long outage would pile listeners on the signal.
          const timer = (this.options.clock ?? systemClock).after(errorDelay, () => {
            this.abort.signal.removeEventListener('abort', wake);
            resolve();
          });
          this.abort.signal.addEventListener('abort', wake, { once: true });
        });
        errorDelay = Math.min(MAX_ERROR_DELAY_MS, errorDelay * 2);
      }
    }
  }
}
