// The simulated agents' SQS receives, shared. A real machine agent keeps one long poll open on its
// queue (agent/machine/hint-receiver.ts); thousands in one process would hold thousands of sockets
// to the SQS server and file descriptors beyond this host's limit. So each simulated agent keeps
// its real HintReceiver, but hands it a client whose ReceiveMessage waits here, and a bounded
// number of workers poll the waiting queues of every agent on the real SQS server.
//
// A worker's receive does not wait (WaitTimeSeconds 0): one waiting receive would hold a worker
// for every empty queue. Instead each queue is polled when something was sent to it (the
// controller's clients report their sends: watchSends, or reportSends from another thread), and otherwise again after an interval
// that starts short and doubles while the queue stays empty, up to `idleIntervalMs`. A real
// agent's long poll returns as soon as a hint arrives; so does this, without the real one's
// receive every 20 s while idle, which costs SQS, not the controller, and which 20,000 agents in
// one process would turn into a thousand receives a second on this host's two cores.
// Deleting, and anything else, goes to the SQS server as sent.
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { LONG_POLL_SECONDS } from '../../../agent/machine/hint-receiver.js';

const queueNameOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

export interface SharedHintPollsOptions {
  /** The client every worker receives through (the one SQS server). */
  sqs: SQSClient;
  /** Receives in flight at once, all queues together. */
  workers?: number;
  /** The first interval after a queue had a message, doubling to `idleIntervalMs`. */
  firstIntervalMs?: number;
  /** The longest interval between polls of an empty queue: a send nobody reported waits this long. */
  idleIntervalMs?: number;
}

interface Waiting {
  queueUrl: string;
  /** When to poll next (undefined: not scheduled, its agent has its messages), and the interval that led there. */
  dueAt?: number;
  intervalMs: number;
  answer?: (messages: Message[]) => void;
  fail?: (e: unknown) => void;
}

/** A queue in the heap, due at `dueAt`; stale once the queue was rescheduled (its own dueAt differs). */
interface Due {
  waiting: Waiting;
  dueAt: number;
}

/** A min-heap of waiting queues by due time: the workers take the most overdue one. */
class DueQueue {
  private readonly heap: Due[] = [];
  peek(): Due | undefined {
    return this.heap[0];
  }
  /** Schedules `w` at `dueAt`; an earlier schedule of it goes stale. */
  push(w: Waiting, dueAt: number): void {
    w.dueAt = dueAt;
    const h = this.heap;
    h.push({ waiting: w, dueAt });
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.dueAt <= h[i]!.dueAt) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }
  pop(): Due | undefined {
    const h = this.heap;
    const top = h[0];
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

/** Calls `report` with the queue of every message `client` sends (SendMessage and SendMessageBatch). */
export function reportSends(client: SQSClient, report: (queueUrl: string) => void): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName === 'SendMessageCommand' || context.commandName === 'SendMessageBatchCommand')
        report((args.input as { QueueUrl: string }).QueueUrl);
      return out;
    },
    { step: 'initialize', name: 'shared-hint-polls-heard' },
  );
}

export class SharedHintPolls {
  private readonly due = new DueQueue();
  private readonly byQueue = new Map<string, Waiting>();
  /** The same by queue name: a sender's URL for a queue may differ from the receiver's in its host. */
  private readonly byName = new Map<string, Waiting>();
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

  /**
   * Hears of every message `client` sends to a queue, so that a waiting agent's queue is polled at
   * once: the clients of whatever sends hints in this thread (reportSends for another thread's).
   */
  watchSends(client: SQSClient): void {
    reportSends(client, (queueUrl) => this.heard(queueUrl));
  }

  /** A message was sent to `queueUrl`: its agent, if waiting, is polled at once. */
  heard(queueUrl: string): void {
    const waiting = this.byName.get(queueNameOf(queueUrl));
    // An agent acting on hints has none waiting: it is polled at once when it receives again.
    if (!waiting?.answer) return;
    waiting.intervalMs = this.firstIntervalMs;
    this.due.push(waiting, Date.now());
    this.wake();
  }

  private get firstIntervalMs(): number {
    return this.options.firstIntervalMs ?? 200;
  }

  private receive(queueUrl: string, signal: AbortSignal | undefined): Promise<Message[]> {
    return new Promise<Message[]>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let waiting = this.byQueue.get(queueUrl);
      if (!waiting) {
        // A new agent: its queue is polled at once.
        waiting = { queueUrl, intervalMs: this.firstIntervalMs };
        this.byQueue.set(queueUrl, waiting);
        this.byName.set(queueNameOf(queueUrl), waiting);
        this.due.push(waiting, Date.now());
      } else if (waiting.dueAt === undefined) {
        // The agent is back from acting on hints: more are likely soon.
        waiting.intervalMs = this.firstIntervalMs;
        this.due.push(waiting, Date.now());
      }
      const onAbort = () => {
        waiting.answer = undefined;
        waiting.fail = undefined;
        this.byQueue.delete(queueUrl);
        this.byName.delete(queueNameOf(queueUrl));
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
      const { waiting, dueAt } = this.due.pop()!;
      if (waiting.dueAt !== dueAt) continue; // rescheduled since
      waiting.dueAt = undefined;
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
      // Polled again later, unless a send reschedules it sooner (or it was rescheduled while this receive ran).
      if (waiting.dueAt !== undefined) continue;
      waiting.intervalMs = Math.min(this.options.idleIntervalMs ?? LONG_POLL_SECONDS * 1000, waiting.intervalMs * 2);
      this.due.push(waiting, Date.now() + waiting.intervalMs);
    }
  }
}
