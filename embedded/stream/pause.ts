// Waits that stop() can cut short. Every wait in the poller goes through here, so that once the
// poller's AbortSignal fires no timer is left behind (stop() promises "nothing left running").

/** Resolves after `ms`, or at once when `signal` aborts (never rejects: callers check the signal). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return wakeablePause(ms, signal).promise;
}

/**
 * A pause that can also be ended early: at once by `wake()` (used to run shard discovery on
 * demand), or within `ms` by `wakeWithin(ms)` (never later than it was going to end).
 */
export function wakeablePause(
  ms: number,
  signal: AbortSignal,
): { promise: Promise<void>; wake: () => void; wakeWithin: (ms: number) => void } {
  let wake = () => {};
  let wakeWithin = (_ms: number) => {};
  const promise = new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    let endsAt = Date.now() + Math.max(0, ms);
    let ended = false;
    const done = () => {
      ended = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    let timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
    wake = done;
    wakeWithin = (within) => {
      const at = Date.now() + Math.max(0, within);
      if (ended || at >= endsAt) return;
      clearTimeout(timer);
      endsAt = at;
      timer = setTimeout(done, Math.max(0, within));
    };
  });
  return { promise, wake: () => wake(), wakeWithin: (within) => wakeWithin(within) };
}

/** Exponential backoff: base, 2×base, 4×base, … capped at `max`. `attempt` counts from 1. */
export function backoff(attempt: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}

/**
 * Lets one party wait for "something changed" (a shard progressed, discovery ran) without
 * polling: drain() waits on it.
 */
export class ChangeSignal {
  private waiters: Array<() => void> = [];

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves on the next notify(), or when `signal` aborts. */
  next(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.waiters.push(done);
    });
  }
}
