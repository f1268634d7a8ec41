// The status history `drover show-status-log` shows (Juju keeps the same for units, workloads
// and machines). Each status change writes one entry, in the same transaction as the change, so
// the history never misses or invents one.
import type { StatusInfo } from './entities.js';
import { refs, type Change } from './plan.js';

/** Juju's history types: the unit agent's, the charm's workload, the machine agent's, the instance's. */
export type StatusLogType = 'juju-unit' | 'workload' | 'juju-machine' | 'machine';
export const STATUS_LOG_TYPES: readonly StatusLogType[] = ['juju-unit', 'workload', 'juju-machine', 'machine'];

/** How long entries are kept (Juju's max-status-history-age default: 336 h); DynamoDB TTL expires them. */
export const STATUS_LOG_RETENTION_SECONDS = 336 * 3600;

export interface StatusLogEntry {
  /** The unit's or machine's name (not `entity`: the store uses that attribute for the item's kind). */
  name: string;
  type: StatusLogType;
  status: string;
  message?: string;
  time: string;
  expiresAt: number;
}

export function statusLogEntry(entity: string, type: StatusLogType, status: Pick<StatusInfo, 'current' | 'message'>, now: string): Change {
  const entry: StatusLogEntry = {
    name: entity,
    type,
    status: status.current,
    ...(status.message ? { message: status.message } : {}),
    time: now,
    expiresAt: Math.floor(Date.parse(now) / 1000) + STATUS_LOG_RETENTION_SECONDS,
  };
  return { op: 'put', ref: refs.statusLog(entity, now, type), value: { ...entry } };
}
