// What a unit agent tells the controller about its unit, batched into the agent API's `report`
// (shared/domain/plans/unit-report.ts): the agent status Juju's uniter reports (executing
// `running <hook> hook`, idle, error: https://juju.is/docs/juju/status), the workload statuses
// the agent and the charm set, the charm URL its directory holds, and its log lines. One request
// carries them all, where each used to cost its own (set-unit-status, set-unit-charm, log), and
// the machine agent's own lines waiting at the time ride along.
//
// When a report goes: when the unit agent has nothing left to do (flush(), called as it waits:
// the end of a burst of hooks, after the last one committed), and otherwise REPORT_DELAY_MS after
// the first change not yet sent, so a long hook's `executing` status and its status-set show in
// `status` within a second, as they do in Juju. Nothing is merged away: every change is sent, in
// order, with the time it was made, so the status history holds each one (Juju's uniter writes
// each as it happens, and show-status-log lists them all); only the unit item keeps the last.
// A change equal to the latest one is dropped (a charm that sets the same status in every
// update-status costs nothing).
//
// Retries: a report keeps its id until the controller has taken it. A report the API could not be
// reached for is sent again, the same report with the same id, before anything newer, so the
// controller takes it once (the unit remembers the id of its last report) whatever became of the
// earlier attempt. The machine agent keeps one reporter per unit for as long as the unit is
// deployed, so a unit agent restarted after such a failure resends it too.
import { systemClock, type Clock, type Timer } from '../clock.js';
import { randomBytes } from 'node:crypto';
import { MAX_LOG_LINES, MAX_REPORTED_STATUSES } from '#shared/api/agent-requests.js';
import { AgentApiError, type AgentApi } from '../api-client.js';
import { MACHINE, type CarriedLines, type ShippedLine } from '../log/agent-log.js';

export interface StatusInput {
  current: string;
  message?: string;
  data?: Record<string, string | number | boolean>;
}

export interface StatusUpdate {
  agent?: StatusInput;
  workload?: StatusInput;
}

type Kind = 'agent' | 'workload';

interface StatusChange {
  kind: Kind;
  status: StatusInput;
  at: string;
}

interface Report {
  unit: string;
  id: string;
  statuses?: StatusChange[];
  charmUrl?: string;
  lines?: ShippedLine[];
  machineLines?: ShippedLine[];
}

/** How long a change waits for others to share its request, unless the unit agent goes idle first. */
export const REPORT_DELAY_MS = 1_000;

const keyOf = (s: StatusInput) => JSON.stringify([s.current, s.message ?? '', s.data ?? {}]);
const newReportId = () => randomBytes(12).toString('base64url');

export class UnitReporter {
  private statuses: StatusChange[] = [];
  private charmUrl?: string;
  /** Taken from the pending changes and sent, not yet taken by the controller: sent again as it is. */
  private unacknowledged?: Report;
  /** The latest status of each kind queued, sent or known from state: an equal one is not queued again. */
  private readonly latest: Partial<Record<Kind, string>> = {};
  /** The time of the latest change of each kind: the next is later, so history orders them. */
  private readonly lastAt: Partial<Record<Kind, number>> = {};
  private worker?: Promise<void>;
  private timer?: Timer;
  private failure?: unknown;

  constructor(
    private readonly api: AgentApi,
    private readonly unit: string,
    /** The unit's log lines, which ride on its reports (agent/log/agent-log.ts). */
    private readonly lines: CarriedLines,
    private readonly clock: Clock = systemClock,
  ) {}

  set(update: StatusUpdate): void {
    if (update.agent) this.queue('agent', update.agent);
    if (update.workload) this.queue('workload', update.workload);
  }

  /** The workload status state holds, as the view says, until this reporter queues one itself. */
  knowWorkload(workload: StatusInput): void {
    this.latest.workload ??= keyOf(workload);
  }

  /** The charm URL whose contents the unit's charm directory now holds. */
  reportCharm(charmUrl: string): void {
    this.charmUrl = charmUrl;
    this.schedule();
  }

  /** New log lines for the unit wait in the machine's log: they go with the next report. */
  linesWaiting(): void {
    if (this.lines.count(this.unit) >= MAX_LOG_LINES) this.start();
    else this.schedule();
  }

  /** Sends what is pending now; resolves once everything so far is taken; throws if a report failed. */
  async flush(): Promise<void> {
    this.start();
    while (this.worker) await this.worker;
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
  }

  /** Stops the timer: the machine agent is going, and flushes what it can itself. */
  close(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private queue(kind: Kind, status: StatusInput): void {
    const key = keyOf(status);
    if (this.latest[kind] === key) return;
    this.latest[kind] = key;
    const at = Math.max(this.clock.now(), (this.lastAt[kind] ?? 0) + 1);
    this.lastAt[kind] = at;
    this.statuses.push({ kind, status, at: new Date(at).toISOString() });
    if (this.statuses.length >= MAX_REPORTED_STATUSES) this.start();
    else this.schedule();
  }

  private schedule(): void {
    this.timer ??= this.clock.after(REPORT_DELAY_MS, () => {
      this.timer = undefined;
      this.start();
    });
  }

  private start(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.worker ??= this.drain().finally(() => {
      this.worker = undefined;
    });
  }

  private hasPending(): boolean {
    return this.statuses.length > 0 || this.charmUrl !== undefined || this.lines.count(this.unit) > 0;
  }

  /** The next report: what is pending, bounded as the API bounds it. */
  private take(): Report {
    const statuses = this.statuses.splice(0, MAX_REPORTED_STATUSES);
    const lines = this.lines.take(this.unit, MAX_LOG_LINES);
    // The machine agent's own lines waiting then go along: they would cost a request of their own.
    const machineLines = this.lines.take(MACHINE, MAX_LOG_LINES);
    const charmUrl = this.charmUrl;
    this.charmUrl = undefined;
    return {
      unit: this.unit,
      id: newReportId(),
      ...(statuses.length > 0 ? { statuses } : {}),
      ...(charmUrl !== undefined ? { charmUrl } : {}),
      ...(lines.length > 0 ? { lines } : {}),
      ...(machineLines.length > 0 ? { machineLines } : {}),
    };
  }

  private async drain(): Promise<void> {
    while (this.unacknowledged || this.hasPending()) {
      const report = (this.unacknowledged ??= this.take());
      try {
        await this.api.call('report', report);
        this.unacknowledged = undefined;
      } catch (e) {
        this.failure = e;
        if (e instanceof AgentApiError && e.refused) {
          // Refused (the unit is gone from state): the lines are in the machine's log, nowhere
          // else, and the statuses are not in state, so equal ones are not to be dropped.
          this.unacknowledged = undefined;
          delete this.latest.agent;
          delete this.latest.workload;
        }
        // Out of reach: kept, to be sent again as it is by the next flush.
        return;
      }
    }
  }
}
