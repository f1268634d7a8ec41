// A unit agent's report (the agent API's `report`, agent/uniter/unit-reporter.ts): the status
// changes it made since its last report, in order, and the charm URL its directory holds, in one
// transaction. Every change is a status history entry at the time the agent made it, as if each
// had been written on its own (Juju's uniter sets each one as it happens:
// https://github.com/juju/juju/blob/2.9/worker/uniter/operation/runhook.go); the unit keeps the
// last of each kind.
//
// The report's id makes it safe to send again: the unit remembers the id of the last report it
// took (`lastReport`), and the transaction asserts the id read, so a report already taken changes
// nothing, even when its answer was lost and the agent sends the very same report again.
import type { Unit } from '../entities.js';
import { notFound } from '../errors.js';
import { done, refs, type Change, type Expect, type Plan } from '../plan.js';
import { statusLogEntry, type StatusLogType } from '../status-log.js';
import type { StatusInput } from './agent-status.js';

export interface ReportedStatus {
  kind: 'agent' | 'workload';
  status: StatusInput;
  /** When the agent made the change (ISO 8601, its own clock). */
  at: string;
}

export interface UnitReport {
  id: string;
  statuses: ReportedStatus[];
  charmUrl?: string;
}

const HISTORY_TYPE: Record<ReportedStatus['kind'], StatusLogType> = { agent: 'juju-unit', workload: 'workload' };
const FIELD: Record<ReportedStatus['kind'], 'agentStatus' | 'workloadStatus'> = { agent: 'agentStatus', workload: 'workloadStatus' };

/**
 * The time a change is recorded at: the agent's, but never later than the controller's clock (an
 * agent's fast clock must not date history in the future), and later than the change before it of
 * the same kind, whose history entry would otherwise be the same item.
 */
function recordedAt(at: string, now: string, previous: string | undefined): string {
  let ms = Math.min(Date.parse(at), Date.parse(now));
  if (previous !== undefined && ms <= Date.parse(previous)) ms = Date.parse(previous) + 1;
  return new Date(ms).toISOString();
}

/** `applied: false`: the unit had taken this report already. */
export function planUnitReport(unit: Unit | undefined, name: string, report: UnitReport, now: string): Plan<{ applied: boolean }> {
  if (!unit) throw notFound(`unit "${name}" not found`);
  if (unit.lastReport === report.id) return done({ applied: false });
  const set: Record<string, unknown> = { lastReport: report.id };
  const history: Change[] = [];
  const last: Partial<Record<ReportedStatus['kind'], string>> = {};
  for (const { kind, status, at } of report.statuses) {
    const since = recordedAt(at, now, last[kind]);
    last[kind] = since;
    set[FIELD[kind]] = { ...status, since };
    history.push(statusLogEntry(name, HISTORY_TYPE[kind], status, since));
  }
  if (report.charmUrl !== undefined && report.charmUrl !== unit.charmUrl) set.charmUrl = report.charmUrl;
  // The id read is asserted: a concurrent copy of this report that got in first cancels this one,
  // and the plan made again finds the report taken.
  const expect: Expect = unit.lastReport === undefined ? { absent: ['lastReport'] } : { equals: { lastReport: unit.lastReport } };
  return { changes: [{ op: 'update', ref: refs.unit(name), set, expect }, ...history], result: { applied: true } };
}
