// The agents' log: every line goes to this process's stdout (the machine's agent.log locally,
// the journal on EC2) and, batched, to the controller through the agent API's `log` op, which
// keeps it for `drover debug-log`: a hook's "output is written to the unit agent's log" (Juju's
// https://github.com/juju/juju/blob/7f5ca4e9229c4320911ac5436e489fd1f59d88c7/doc/charms-in-action.txt).
// Lines the API cannot take yet are kept (up to a bound) and sent with the next batch.
//
// A unit's lines ride on its unit agent's reports (agent/uniter/unit-reporter.ts) while one
// carries them: they wait here until the reporter takes them, and cost no request of their own.
// The machine agent's own lines ride on the next report of any unit too; those no report takes
// (and a unit's, when no reporter carries them) go by `log`, five seconds after the first of
// them, so a machine's start-up lines share one request when no unit reports meanwhile.
import type { LogLevel } from '#shared/logs/log-sink.js';
import { entityTag, formatLogLine } from '#shared/logs/log-sink.js';
import { MAX_LOG_LINES } from '#shared/api/agent-requests.js';
import { AgentApiError, type AgentApi } from '../api-client.js';
import { isoNow, systemClock, type Clock, type Timer } from '../clock.js';

export interface ShippedLine {
  time: string;
  level: LogLevel;
  module: string;
  message: string;
}

/** What a reporter sees of its unit's waiting lines. */
export interface CarriedLines {
  count(unit: string): number;
  /** Up to `max` of the unit's oldest waiting lines, no longer waiting here. */
  take(unit: string, max: number): ShippedLine[];
}

/** Told when a line for its unit waits. */
export interface LineCarrier {
  linesWaiting(): void;
}

type Line = ShippedLine;

/** The key of the machine agent's own lines (a unit's are under its name). */
export const MACHINE = '';

const BATCH = MAX_LOG_LINES;
const MAX_KEPT = 10_000;
const MAX_MESSAGE = 16_000;
const FLUSH_DELAY_MS = 5_000;

export class AgentLog implements CarriedLines {
  /** Pending lines per unit (MACHINE for the machine agent itself). */
  private readonly pending = new Map<string, Line[]>();
  /** Units whose lines ride on their reports. */
  private readonly carriers = new Map<string, LineCarrier>();
  private timer?: Timer;
  private flushing?: Promise<void>;
  private dropped = 0;

  constructor(
    private readonly machineId: string,
    private readonly api?: AgentApi,
    private readonly echo: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
    private readonly clock: Clock = systemClock,
  ) {}

  /** `ship: false`: the machine's own log only, never the controller's (a routine line that would cost a request). */
  log(unit: string | undefined, level: LogLevel, module: string, message: string, options: { ship?: boolean } = {}): void {
    const line: Line = { time: isoNow(this.clock), level, module, message: message.slice(0, MAX_MESSAGE) };
    this.echo(formatLogLine({ entity: unit !== undefined ? entityTag(unit) : `machine-${this.machineId}`, ...line }));
    if (!this.api || options.ship === false) return;
    const key = unit ?? MACHINE;
    const lines = this.pending.get(key) ?? [];
    lines.push(line);
    this.pending.set(key, lines);
    this.trim();
    const carrier = this.carriers.get(key);
    if (carrier) return carrier.linesWaiting();
    this.timer ??= this.clock.after(FLUSH_DELAY_MS, () => {
      this.timer = undefined;
      void this.flush();
    });
  }

  /** From now on the unit's lines wait for `carrier` to take them. */
  carry(unit: string, carrier: LineCarrier): void {
    this.carriers.set(unit, carrier);
    if (this.count(unit) > 0) carrier.linesWaiting();
  }

  /** The unit's lines go by `log` again (its agent is gone): those waiting with the next flush. */
  uncarry(unit: string): void {
    if (!this.carriers.delete(unit) || this.count(unit) === 0) return;
    this.timer ??= this.clock.after(FLUSH_DELAY_MS, () => {
      this.timer = undefined;
      void this.flush();
    });
  }

  count(unit: string): number {
    return this.pending.get(unit)?.length ?? 0;
  }

  take(unit: string, max: number): ShippedLine[] {
    const lines = this.pending.get(unit);
    if (!lines) return [];
    const taken = lines.splice(0, max);
    if (lines.length === 0) this.pending.delete(unit);
    return taken;
  }

  /** For one unit: `log.for('mysql/0').info(module, message)`. */
  for(unit: string | undefined) {
    return {
      debug: (module: string, message: string) => this.log(unit, 'DEBUG', module, message),
      info: (module: string, message: string) => this.log(unit, 'INFO', module, message),
      warning: (module: string, message: string) => this.log(unit, 'WARNING', module, message),
      error: (module: string, message: string) => this.log(unit, 'ERROR', module, message),
    };
  }

  flush(): Promise<void> {
    // `.finally` runs after this assignment even when there is nothing to send; an async body
    // that returned at once would clear `flushing` before it was set, and every later flush
    // would return that settled promise and send nothing again.
    this.flushing ??= this.sendPending().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Whether lines wait that no reporter carries. */
  private hasUncarried(): boolean {
    for (const key of this.pending.keys()) if (!this.carriers.has(key)) return true;
    return false;
  }

  private async sendPending(): Promise<void> {
    // Lines logged while a batch was on its way are sent too, before this resolves.
    while (this.hasUncarried() && (await this.send()));
  }

  /**
   * Sends everything pending, retrying for up to `timeoutMs` when the API cannot be reached:
   * for lines that must land before their unit goes (a removed unit's lines are refused).
   */
  async drain(timeoutMs = 5_000): Promise<void> {
    const deadline = this.clock.now() + timeoutMs;
    while (this.hasUncarried() && this.clock.now() < deadline) {
      if (await this.send().catch(() => false)) continue;
      await this.clock.sleep(200);
    }
  }

  /** At the agent's stop: whatever is left, carried or not (the unit agents have flushed their reports). */
  async close(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    this.carriers.clear();
    await this.flush().catch(() => undefined);
    if (this.pending.size > 0) await this.send().catch(() => undefined);
  }

  /** Sends what is pending; false when the API could not be reached (a retry is scheduled). */
  private async send(): Promise<boolean> {
    if (!this.api) return false;
    for (const [key, lines] of [...this.pending]) {
      if (this.carriers.has(key)) continue;
      while (lines.length > 0) {
        const batch = lines.splice(0, BATCH);
        try {
          await this.api.call('log', { ...(key ? { unit: key } : {}), lines: batch });
        } catch (e) {
          // Refused (the unit is gone from state): the lines are in the local log, nowhere else.
          if (e instanceof AgentApiError && e.refused) {
            this.dropped += batch.length;
            continue;
          }
          lines.unshift(...batch); // kept for the next flush
          this.schedule(5_000);
          return false;
        }
      }
      this.pending.delete(key);
    }
    return true;
  }

  private schedule(ms: number): void {
    this.timer ??= this.clock.after(
      ms,
      () => {
        this.timer = undefined;
        void this.flush();
      },
      { unref: true },
    );
  }

  private trim(): void {
    let total = 0;
    for (const lines of this.pending.values()) total += lines.length;
    for (const lines of this.pending.values()) {
      while (total > MAX_KEPT && lines.length > 0) {
        lines.shift();
        total--;
        this.dropped++;
      }
    }
  }
}
