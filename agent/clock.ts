// The agents' one way to read the time and to wait. Every agent module takes a Clock (the system
// clock in production) instead of reading Date.now or calling setTimeout itself, so tests drive
// leases, heartbeats and update-status on a clock they move (test/support/fake-clock.ts), as
// Juju's workers take a clock.Clock and its tests a testclock
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/uniter.go, UniterParams.Clock).
// test/unit/agent/wall-clock.test.ts fails on any other agent module that reads the wall clock.

/** A scheduled callback; cancelling one that already ran does nothing. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms`. `unref`: the timer alone does not keep the process alive. */
  after(ms: number, fn: () => void, options?: { unref?: boolean }): Timer;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn, options = {}) {
    const handle = setTimeout(fn, ms);
    if (options.unref) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** An ISO timestamp of the clock's now (log lines, deployment records). */
export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();
