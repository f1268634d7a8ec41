// Keeps the unit agents of this machine running: the issue's "restarts its unit agents if they
// die". A unit agent that throws (the API unreachable for too long, a bug) is started again after
// a backoff; it then treats an interrupted hook as failed and runs config-changed, as a unit agent
// "recovering from transient unit agent errors" does. One that finished (its unit is Dead) is
// left alone until its deployer recalls it.
import type { AgentLog } from '../log/agent-log.js';
import { systemClock, type Clock } from '../clock.js';
import { Signal } from '../signal.js';
import type { Uniter } from '../uniter/uniter.js';
import { errorStack } from '#shared/domain/errors.js';

interface Entry {
  uniter?: Uniter;
  task: Promise<void>;
  stopped: boolean;
  finished: boolean;
  /** Cuts a restart delay short when the unit agent is stopped, or when retryNow() is called. */
  wake: Signal;
  /** Waiting out a restart delay. */
  backingOff: boolean;
}

const MAX_RESTART_DELAY_MS = 30_000;
/** A unit agent that ran this long before dying starts again at the shortest delay. */
const HEALTHY_RUN_MS = 60_000;

export class UniterSupervisor {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly create: (unit: string) => Uniter,
    private readonly log: AgentLog,
    private readonly clock: Clock = systemClock,
  ) {}

  start(unit: string): void {
    if (this.entries.has(unit)) return;
    const entry: Entry = { task: Promise.resolve(), stopped: false, finished: false, wake: new Signal(this.clock), backingOff: false };
    this.entries.set(unit, entry);
    entry.task = this.keepRunning(unit, entry);
  }

  async stop(unit: string, options: { shutdown?: boolean } = {}): Promise<void> {
    const entry = this.entries.get(unit);
    if (!entry) return;
    entry.stopped = true;
    entry.wake.notify();
    entry.uniter?.stop(options);
    await entry.task;
    this.entries.delete(unit);
  }

  async stopAll(options: { shutdown?: boolean } = {}): Promise<void> {
    await Promise.all([...this.entries.keys()].map((u) => this.stop(u, options)));
  }

  /**
   * The controller is reachable again (hints flow after an outage): unit agents that died of the
   * outage start again now, not at the end of a restart delay that may have grown to 30 s.
   */
  retryNow(): void {
    for (const entry of this.entries.values()) if (entry.backingOff) entry.wake.notify();
  }

  forEach(fn: (uniter: Uniter, unit: string) => void): void {
    for (const [unit, entry] of this.entries) if (entry.uniter && !entry.finished) fn(entry.uniter, unit);
  }

  has(unit: string): boolean {
    return this.entries.has(unit);
  }

  private async keepRunning(unit: string, entry: Entry): Promise<void> {
    let delay = 1_000;
    while (!entry.stopped) {
      const uniter = this.create(unit);
      entry.uniter = uniter;
      const started = this.clock.now();
      try {
        if ((await uniter.run()) === 'done') {
          entry.finished = true;
          return;
        }
      } catch (e) {
        if (entry.stopped) return;
        if (this.clock.now() - started > HEALTHY_RUN_MS) delay = 1_000;
        this.log.log(unit, 'ERROR', 'juju.worker.uniter', `unit agent failed: ${errorStack(e)}; restarting in ${delay} ms`);
        entry.backingOff = true;
        await entry.wake.wait(delay);
        entry.backingOff = false;
        delay = Math.min(MAX_RESTART_DELAY_MS, delay * 2);
      }
    }
  }
}
