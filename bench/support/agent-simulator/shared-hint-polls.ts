// The simulated agents' SQS receives, shared. A real machine agent keeps one long poll open on its
// queue (agent/machine/hint-receiver.ts); thousands in one process would hold thousands of sockets
// to the SQS server and file descriptors beyond this host's limit. So each simulated agent keeps
// its real HintReceiver, but hands it a client whose ReceiveMessage waits here, and a bounded
// number of workers poll the waiting queues of every agent on the real SQS server.
//
// A worker's receive does not wait (WaitTimeSeconds 0): one waiting receive would hold a worker
// for every empty queue. Instead each queue is polled again after an interval that starts short
// (a hint is usually followed by more while an agent starts a unit) and doubles while the queue
// stays empty, up to the long poll's 20 s, so an idle agent costs the SQS server one receive per
// 20 s, as a real one does. The price is latency: a hint to an idle agent waits up to 20 s here,
// where a long poll returns at once. Deleting, and anything else, goes to the SQS server as sent.
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { LONG_POLL_SECONDS } from '../../../agent/machine/hint-receiver.js';

export interface SharedHintPollsOptions {
  /** The client every worker receives through (the one SQS server). */
  sqs: SQSClient;
  /** Receives in flight at once, all queues together. */
  workers?: number;
  /** The first interval after a queue had a message, doubling to the long poll's 20 s. */
  firstIntervalMs?: number;
}

interface Waiting {
  queueUrl: string;
  /** When to poll next, and the interval that led there. */
  dueAt: number;
  intervalMs: number;
  /** In the due queue (else answered, until its agent receives again). */
  scheduled: boolean;
  answer?: (messages: Message[]) => void;
  fail?: (e: unknown) => void;
}

const MAX_INTERVAL_MS = LONG_POLL_SECONDS * 1000;

/** A min-heap of waiting queues by due time: the workers take the most overdue one. */
class DueQueue {
  private readonly heap: Waiting[] = [];
  get size(): number {
    return this.heap.length;
  }
  peek(): Waiting | undefined {
    return this.heap[0];
  }
  push(w: Waiting): void {
    w.scheduled = true;
    const h = this.heap;
    h.push(w);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.dueAt <= h[i]!.dueAt) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }
  pop(): Waiting | undefined {
    const h = this.heap;
    const top = h[0];
    if (top) top.scheduled = false;
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      for (let i = 0; ;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let least = i;
        if (l < h.length && h[l]!.dueAt < h[least]!.dueAt) least = l;
        if (r < h.length && h[r]!.dueAt < h[least]!.dueAt) least = r;
        if (least === i) break;
        [h[least], h[i]] = [h[i]!, h[least]!];
        i = least;
      }
    }
    return top;
  }
}

export class SharedHintPolls {
  private readonly due = new DueQueue();
  private readonly byQueue = new Map<string, Waiting>();
  private readonly workers: Promise<void>[] = [];
  private stopped = false;
  private readonly sleepers = new Set<() => void>();
  /** Receives sent to the SQS server, and those that brought messages. */
  receives = 0;
  receivesWithMessages = 0;

  constructor(private readonly options: SharedHintPollsOptions) {
    for (let i = 0; i < (options.workers ?? 16); i++) this.workers.push(this.work());
  }

  /** A client for one agent: its receives wait here; everything else goes to `own`. */
  clientFor(own: SQSClient): SQSClient {
    const client = {
      send: (command: unknown, options?: { abortSignal?: AbortSignal }) => {
        if (command instanceof ReceiveMessageCommand) {
          return this.receive(command.input.QueueUrl!, options?.abortSignal).then((Messages) => ({ Messages, $metadata: {} }));
        }
        return own.send(command as never, options as never);
      },
      destroy: () => undefined,
    };
    return client as unknown as SQSClient;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await Promise.all(this.workers);
    for (const w of this.byQueue.values()) w.fail?.(new Error('hint polls stopped'));
  }

  private receive(queueUrl: string, signal: AbortSignal | undefined): Promise<Message[]> {
    return new Promise<Message[]>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let waiting = this.byQueue.get(queueUrl);
      const first = this.options.firstIntervalMs ?? 200;
      if (!waiting) {
        // A new agent: its queue is polled at once.
        waiting = { queueUrl, dueAt: Date.now(), intervalMs: first, scheduled: false };
        this.byQueue.set(queueUrl, waiting);
        this.due.push(waiting);
      } else if (!waiting.scheduled) {
        // The agent is back from acting on hints: more are likely soon.
        waiting.intervalMs = first;
        waiting.dueAt = Date.now();
        this.due.push(waiting);
      }
      const onAbort = () => {
        waiting.answer = undefined;
        waiting.fail = undefined;
        this.byQueue.delete(queueUrl);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.answer = (messages) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(messages);
      };
      waiting.fail = (e) => {
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      };
      this.wake();
    });
  }

  private wake(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const next = this.due.peek();
      const now = Date.now();
      if (!next || next.dueAt > now) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            this.sleepers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, next ? next.dueAt - now : 1_000);
          this.sleepers.add(wake);
        });
        continue;
      }
      const waiting = this.due.pop()!;
      if (this.byQueue.get(waiting.queueUrl) !== waiting || !waiting.answer) continue; // gone, or answered
      let messages: Message[] = [];
      try {
        const out = await this.options.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: waiting.queueUrl, WaitTimeSeconds: 0, MaxNumberOfMessages: 10 }),
        );
        messages = out.Messages ?? [];
        this.receives++;
      } catch (e) {
        // As a failed long poll: the agent's receiver logs it, resyncs and receives again.
        const fail = waiting.fail;
        waiting.answer = waiting.fail = undefined;
        fail?.(e);
        continue;
      }
      if (messages.length > 0 && waiting.answer) {
        this.receivesWithMessages++;
        const answer = waiting.answer;
        waiting.answer = waiting.fail = undefined;
        answer(messages);
        continue; // polled again once its agent receives again
      }
      waiting.intervalMs = Math.min(MAX_INTERVAL_MS, waiting.intervalMs * 2);
      waiting.dueAt = Date.now() + waiting.intervalMs;
      this.due.push(waiting);
    }
  }
}
