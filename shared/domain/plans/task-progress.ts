// A task's life on its unit's agent: pending → running (the uniter took it) → completed or
// failed (it ended), with action-log messages in between. Every step asserts the status it
// read, so a retried call (the agent died after the write) finds the step done and changes
// nothing, and a task cancelled meanwhile is never started.
import { DroverError, notFound } from '../errors.js';
import { FINISHED, type Task, type TaskLogEntry, type TaskStatus } from '../operations.js';
import { done, refs, type Change, type Plan } from '../plan.js';

/** action-log messages kept per task (the latest), so a chatty action cannot outgrow its item. */
export const MAX_TASK_LOG_ENTRIES = 200;
export const MAX_TASK_LOG_BYTES = 64 * 1024;
/** The bytes of results (action-set, output) kept per task; DynamoDB items hold 400 KB. */
export const MAX_TASK_RESULTS_BYTES = 256 * 1024;

const missing = (id: string) => notFound(`task ${id} not found`);

/** The uniter takes a pending task. Answers the task as it now is: not `running` means skip it. */
export function planStartTask(task: Task | undefined, id: string, now: string): Plan<Task> {
  if (!task) throw missing(id);
  if (task.status !== 'pending') return done(task);
  const started = { ...task, status: 'running' as const, started: now };
  return {
    changes: [{ op: 'update', ref: refs.task(id), set: { status: 'running', started: now }, expect: { equals: { status: 'pending' } } }],
    result: started,
  };
}

export function planLogTask(task: Task | undefined, id: string, entry: TaskLogEntry): Plan<void> {
  if (!task) throw missing(id);
  if (task.status !== 'running') throw new DroverError('not-alive', `task ${id} is not running`);
  const log = [...task.log, entry].slice(-MAX_TASK_LOG_ENTRIES);
  while (log.length > 1 && Buffer.byteLength(JSON.stringify(log)) > MAX_TASK_LOG_BYTES) log.shift();
  if (Buffer.byteLength(entry.message) > MAX_TASK_LOG_BYTES)
    log[log.length - 1] = { ...entry, message: entry.message.slice(0, MAX_TASK_LOG_BYTES / 4) };
  // The log read is the log replaced: a concurrent action-log re-plans.
  return {
    changes: [
      {
        op: 'update',
        ref: refs.task(id),
        set: { log, logCount: (task.logCount ?? 0) + 1 },
        expect: task.logCount
          ? { equals: { status: 'running', logCount: task.logCount } }
          : { equals: { status: 'running' }, absent: ['logCount'] },
      },
    ],
    result: undefined,
  };
}

export interface TaskOutcome {
  status: Extract<TaskStatus, 'completed' | 'failed'>;
  message?: string;
  results: Record<string, unknown>;
}

/** The task ended on its unit: its outcome, and the unit no longer has it pending. */
export function planFinishTask(task: Task | undefined, id: string, outcome: TaskOutcome, unitExists: boolean, now: string): Plan<Task> {
  if (!task) throw missing(id);
  if (FINISHED.includes(task.status)) return done(task);
  if (Buffer.byteLength(JSON.stringify(outcome.results)) > MAX_TASK_RESULTS_BYTES) {
    outcome = { status: 'failed', message: `results too large (more than ${MAX_TASK_RESULTS_BYTES / 1024} KiB)`, results: {} };
  }
  const finished: Task = {
    ...task,
    status: outcome.status,
    results: outcome.results,
    completed: now,
    ...(outcome.message ? { message: outcome.message } : {}),
  };
  const changes: Change[] = [
    {
      op: 'update',
      ref: refs.task(id),
      set: { status: finished.status, results: finished.results, completed: now, ...(outcome.message ? { message: outcome.message } : {}) },
      expect: { equals: { status: task.status } },
    },
  ];
  if (unitExists) changes.push({ op: 'update', ref: refs.unit(task.unit), removeFromSet: { pendingTasks: [id] } });
  return { changes, result: finished };
}

/**
 * `drover cancel-task`: a pending task becomes cancelled and leaves its unit's queue; one already
 * finished is left alone. A running one is refused: drover's agents cannot abort a running
 * action (Juju's "aborting"), and a cancel that did nothing must not look as if it did.
 */
export function planCancelTask(task: Task | undefined, id: string, unitExists: boolean, now: string): Plan<Task> {
  if (!task) throw missing(id);
  if (FINISHED.includes(task.status)) return done(task);
  if (task.status === 'running') throw new DroverError('invalid-argument', `task ${id} is running; drover cannot abort a running task`);
  const changes: Change[] = [
    { op: 'update', ref: refs.task(id), set: { status: 'cancelled', completed: now }, expect: { equals: { status: 'pending' } } },
  ];
  if (unitExists) changes.push({ op: 'update', ref: refs.unit(task.unit), removeFromSet: { pendingTasks: [id] } });
  return { changes, result: { ...task, status: 'cancelled', completed: now } };
}

/**
 * A unit still lists a task whose item has expired (TTL) or never was: it leaves the unit's
 * queue, so the agent does not ask for it forever. Ids are never reused (one sequence), so a task
 * found absent stays absent: nothing to assert about it.
 */
export function planForgetPendingTask(pendingTasks: string[] | undefined, task: Task | undefined, unit: string, id: string): Plan<void> {
  if (!pendingTasks?.includes(id) || task) return done(undefined);
  return {
    changes: [{ op: 'update', ref: refs.unit(unit), removeFromSet: { pendingTasks: [id] }, expect: { contains: { pendingTasks: id } } }],
    result: undefined,
  };
}
