// The agents' Clock (agent/clock.ts) for tests: time moves only when the test says so, and the
// timers due by then fire in order, each after the promises its predecessors released have run,
// as Juju's testclock lets its tests step a worker through its waits.
import type { Clock, Timer } from '../../agent/clock.js';

interface Scheduled {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets pending promise callbacks (and what they schedule in turn) run before time moves on. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: Scheduled[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  after(ms: number, fn: () => void): Timer {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return { cancel: () => void (this.timers = this.timers.filter((t) => t !== timer)) };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  /** How many timers wait to fire. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time on by `ms`, firing every timer due on the way, at its own time, in order. */
  async advance(ms: number): Promise<void> {
    const until = this.current + ms;
    await settle();
    for (;;) {
      const next = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = next.at;
      next.fn();
      await settle();
    }
    this.current = until;
    await settle();
  }
}
