// Juju 3's operations and tasks (https://github.com/juju/juju/blob/3.6/state/action.go,
// state/operation.go): `drover run app/0 app/1 backup` is one operation with one task per unit;
// `drover exec` is one operation whose tasks run the predefined `juju-exec` action. Operation and
// task ids come from one model-wide sequence, as Juju's "task" sequence: the first `run` is
// operation 1 with task 2.
//
// Both are items with a DynamoDB TTL (`expiresAt`), like the status history: Juju prunes them
// by age (max-action-results-age, 336 h by default). An operation's status is never stored: it
// is computed from its tasks' when read, so a task finishing writes one item only.

/** Juju's action statuses (state/action.go). */
export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'aborted';
export const FINISHED: readonly TaskStatus[] = ['completed', 'failed', 'cancelled', 'aborted'];

/** Juju's max-action-results-age default. */
export const OPERATION_RETENTION_SECONDS = 336 * 3600;

/** The action `drover exec` runs on each target (Juju 3.6: core/actions JujuExecActionName). */
export const EXEC_ACTION = 'juju-exec';

export interface TaskLogEntry {
  timestamp: string;
  message: string;
}

export interface Operation {
  id: string;
  /** Juju's summary: `backup run on unit-mysql-0`. */
  summary: string;
  action: string;
  parameters: Record<string, unknown>;
  tasks: string[];
  enqueued: string;
  expiresAt: number;
}

export interface Task {
  id: string;
  operation: string;
  unit: string;
  action: string;
  parameters: Record<string, unknown>;
  status: TaskStatus;
  message?: string;
  /** action-set values, and the script's `return-code`, `stdout`, `stderr`. */
  results?: Record<string, unknown>;
  /** action-log messages, in order (the latest MAX_TASK_LOG_ENTRIES). */
  log: TaskLogEntry[];
  /** action-log calls so far: the log's version, asserted by the next one. */
  logCount?: number;
  enqueued: string;
  started?: string;
  completed?: string;
  expiresAt: number;
}

/** Juju's tag for a unit: `unit-mysql-0`. */
export const unitTag = (unit: string) => `unit-${unit.replace('/', '-')}`;

export const expiresAt = (now: string) => Math.floor(Date.parse(now) / 1000) + OPERATION_RETENTION_SECONDS;

/**
 * An operation's status from its tasks', as Juju's operation status: running while any task
 * runs, pending while any waits, else the worst outcome (error before cancelled before done).
 */
export function operationStatus(tasks: Pick<Task, 'status'>[]): TaskStatus {
  const has = (s: TaskStatus) => tasks.some((t) => t.status === s);
  if (has('running')) return 'running';
  if (has('pending')) return 'pending';
  if (has('failed')) return 'failed';
  if (has('aborted')) return 'aborted';
  if (has('cancelled')) return 'cancelled';
  return 'completed';
}

/** Task ids in numeric order (a set in DynamoDB has none). */
export const byTaskId = (a: string, b: string) => Number(a) - Number(b);
