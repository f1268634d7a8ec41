// How often a poller looks for new shards (DescribeStream): every interval, at once when asked
// (a shard ended, so its children may be listed; drain() wants a fresh look), and with a growing
// pause while the calls fail.
import { backoff, wakeablePause } from './pause.js';

export class DiscoveryLoop {
  private waiters: Array<() => void> = [];
  private wakeUp = () => {};

  constructor(
    /** One discovery pass; throws when DescribeStream fails. */
    private readonly pass: () => Promise<unknown>,
    private readonly options: {
      intervalMs: number;
      signal: AbortSignal;
      log: (message: string, details: Record<string, unknown>) => void;
    },
  ) {}

  async run(): Promise<void> {
    const { signal, intervalMs } = this.options;
    let failures = 0;
    while (!signal.aborted) {
      if (this.waiters.length === 0 || failures > 0) {
        const wait = wakeablePause(failures > 0 ? backoff(failures, intervalMs, 30_000) : intervalMs, signal);
        this.wakeUp = wait.wake;
        await wait.promise;
        this.wakeUp = () => {};
      }
      if (signal.aborted) break;
      const waiters = this.waiters;
      this.waiters = [];
      try {
        await this.pass();
        failures = 0;
        for (const resolve of waiters) resolve();
      } catch (error) {
        this.waiters.unshift(...waiters);
        if (signal.aborted) break;
        failures++;
        this.options.log('DescribeStream failed; retrying', { error: String(error) });
      }
    }
  }

  /** Resolves after a pass that began after this call (or when stopping). */
  soon(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.wakeUp();
    });
  }

  /** Ends the pause before the next pass now. */
  wake(): void {
    this.wakeUp();
  }

  /** The poller stops: every waiter is released, and the loop ends at its next look at the signal. */
  release(): void {
    this.wakeUp();
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
