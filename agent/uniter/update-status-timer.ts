// When the next update-status hook is due. Juju's uniter runs update-status on a timer of the
// model's update-status-hook-interval, "randomized at run time by up to 20%": each wait is drawn
// from 80% to 120% of the interval (juju/juju worker/uniter NewUpdateStatusTimer), so the units
// of a large model, started together, do not all fire together.
import { systemClock, type Clock } from '../clock.js';

export function updateStatusDelayMs(intervalMs: number, random: () => number = Math.random): number {
  return Math.round(intervalMs * (0.8 + 0.4 * random()));
}

/** The timer of one unit: restarted after every update-status, and when the interval changes. */
export class UpdateStatusTimer {
  private dueAt: number;
  private intervalMs: number;

  constructor(
    intervalMs: number,
    private readonly clock: Clock = systemClock,
    private readonly random: () => number = Math.random,
  ) {
    this.intervalMs = intervalMs;
    this.dueAt = clock.now() + updateStatusDelayMs(intervalMs, random);
  }

  /** A new interval (model-config) takes effect at once, counted from now. */
  changeInterval(intervalMs: number): void {
    if (intervalMs === this.intervalMs) return;
    this.intervalMs = intervalMs;
    this.restart();
  }

  restart(): void {
    this.dueAt = this.clock.now() + updateStatusDelayMs(this.intervalMs, this.random);
  }

  due(): boolean {
    return this.clock.now() >= this.dueAt;
  }

  /** How long until it is due (0 if it is). */
  remainingMs(): number {
    return Math.max(0, this.dueAt - this.clock.now());
  }
}
