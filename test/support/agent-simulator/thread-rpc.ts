// The simulator's threads (agents-thread.ts, sqs-thread.ts) and how the bench's thread, which
// runs the controller, talks to them: a request names an operation and is answered by its id; a
// thread also emits events unasked (a hook ran, a log line). Each thread is the work of something
// that on AWS runs elsewhere (agents on their own instances, SQS), so the controller's CPU is
// measured on its thread alone, and that work gets a core of its own when one is free.
//
// Worker threads start without tsx's loader, which the bench runs under: thread-boot.mjs
// registers it in the thread, then imports the thread's module.
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { threadCpuSeconds } from '../../../bench/support/proc-cpu.js';
import { errorMessage } from '#shared/domain/errors.js';

type Handler = (arg: never) => unknown;

interface Request {
  /** Absent for a request nobody waits on. */
  id?: number;
  op: string;
  arg: unknown;
}

type FromThread = { id: number; value?: unknown; error?: string } | { event: string; data: unknown };

export class SimulatorThread {
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<string, (data: unknown) => void>();
  private nextId = 0;
  private failed?: Error;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: FromThread) => {
      if ('event' in m) return this.listeners.get(m.event)?.(m.data);
      const waiting = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error !== undefined) waiting?.reject(new Error(m.error));
      else waiting?.resolve(m.value);
    });
    const fail = (e: Error) => {
      this.failed = e;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`simulator thread exited (${code})`)));
  }

  /** Starts `module` (a thread's entry, beside this file) with `init` as its workerData.init; resolves once it is serving. */
  static async start(module: string, init: unknown): Promise<SimulatorThread> {
    const worker = new Worker(new URL('./thread-boot.mjs', import.meta.url), {
      workerData: { module: new URL(module, import.meta.url).href, init },
    });
    const thread = new SimulatorThread(worker);
    await thread.call('ready');
    return thread;
  }

  call<T>(op: string, arg?: unknown): Promise<T> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, arg } satisfies Request);
    });
  }

  /** A request nobody waits for (a send the thread should hear of). */
  post(op: string, arg: unknown): void {
    if (!this.failed) this.worker.postMessage({ op, arg } satisfies Request);
  }

  on(event: string, listener: (data: unknown) => void): void {
    this.listeners.set(event, listener);
  }

  /** The thread's own CPU time so far, in seconds. */
  cpuSeconds(): Promise<number> {
    return this.call<number>('cpu');
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/** In a thread: what the bench's thread handed it at start. */
export const threadInit = <T>(): T => (workerData as { init: T }).init;

/** In a thread: an event the bench's thread hears through SimulatorThread.on. */
export function emit(event: string, data: unknown): void {
  parentPort!.postMessage({ event, data } satisfies FromThread);
}

/** In a thread: answers the bench's requests with `handlers` (and `ready` and `cpu`, which every thread has). */
export function serve(handlers: Record<string, Handler>): void {
  const all: Record<string, Handler> = { ...handlers, ready: () => true, cpu: () => threadCpuSeconds() };
  parentPort!.on('message', async ({ id, op, arg }: Request) => {
    try {
      const handler = all[op];
      if (!handler) throw new Error(`no operation ${op} in this simulator thread`);
      const value = await handler(arg as never);
      if (id !== undefined) parentPort!.postMessage({ id, value } satisfies FromThread);
    } catch (e) {
      if (id !== undefined) parentPort!.postMessage({ id, error: errorMessage(e) } satisfies FromThread);
    }
  });
}
