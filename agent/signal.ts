// A level-triggered wake-up: notify() before wait() is not lost, and many notifies make one wake.
import { systemClock, type Clock, type Timer } from './clock.js';

export class Signal {
  private raised = false;
  private waiters: (() => void)[] = [];

  constructor(private readonly clock: Clock = systemClock) {}

  notify(): void {
    this.raised = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Forgets a notify not yet waited for: what it announced is being dealt with now. */
  clear(): void {
    this.raised = false;
  }

  /** Resolves at the next notify (at once if one came since the last wait), or after `timeoutMs`. */
  async wait(timeoutMs?: number): Promise<void> {
    if (this.raised) {
      this.raised = false;
      return;
    }
    await new Promise<void>((resolve) => {
      let timer: Timer | undefined;
      const done = () => {
        timer?.cancel();
        resolve();
      };
      this.waiters.push(done);
      if (timeoutMs !== undefined)
        timer = this.clock.after(timeoutMs, () => {
          this.waiters = this.waiters.filter((w) => w !== done);
          resolve();
        });
    });
    this.raised = false;
  }
}

/** One holder at a time, in arrival order: the machine-wide hook lock. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }
}
