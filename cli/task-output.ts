// How Juju 3's action commands print tasks and operations (cmd/juju/action: run, show-task,
// show-operation, operations): YAML documents with `timing`, times as Go prints a UTC time.
import { stringify } from 'yaml';
import type { Operation, Task } from '#shared/domain/operations.js';
import { operationStatus, unitTag } from '#shared/domain/operations.js';

/** Go's YAML and JSON encoders sort map keys: results print the same way. */
function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortDeep((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export type OperationView = Operation & { taskItems: Task[] };

/** Go's default time format for a UTC time: `2024-01-02 15:04:05 +0000 UTC`. */
export function goTime(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000 UTC`;
}

function timing(t: { enqueued: string; started?: string; completed?: string }) {
  return {
    ...(t.completed ? { completed: goTime(t.completed) } : {}),
    enqueued: goTime(t.enqueued),
    ...(t.started ? { started: goTime(t.started) } : {}),
  };
}

/** One task, as `show-task --format yaml` and `run --format yaml` print it. */
export function taskDocument(task: Task): Record<string, unknown> {
  return {
    id: task.id,
    ...(task.log.length ? { log: task.log.map((l) => `${goTime(l.timestamp)} ${l.message}`) } : {}),
    ...(task.message ? { message: task.message } : {}),
    ...(task.results && Object.keys(task.results).length ? { results: sortDeep(task.results) } : {}),
    status: task.status,
    timing: timing(task),
    unit: task.unit,
  };
}

export function operationDocument(op: OperationView): Record<string, unknown> {
  const tasks = op.taskItems;
  const started = tasks
    .map((t) => t.started)
    .filter((s): s is string => !!s)
    .sort()[0];
  const done = tasks.every((t) => t.completed);
  const completed = done
    ? tasks
        .map((t) => t.completed!)
        .sort()
        .at(-1)
    : undefined;
  return {
    summary: op.summary,
    status: operationStatus(tasks),
    action: { name: op.action, parameters: op.parameters },
    timing: timing({ enqueued: op.enqueued, ...(started ? { started } : {}), ...(completed ? { completed } : {}) }),
    tasks: Object.fromEntries(
      tasks.map((t) => [
        t.id,
        {
          host: t.unit,
          status: t.status,
          timing: timing(t),
          ...(t.log.length ? { log: t.log.map((l) => `${goTime(l.timestamp)} ${l.message}`) } : {}),
          ...(t.message ? { message: t.message } : {}),
          ...(t.results && Object.keys(t.results).length ? { results: sortDeep(t.results) } : {}),
        },
      ]),
    ),
  };
}

export const yaml = (value: unknown) => stringify(value, { lineWidth: 0 });

/** Juju's plain output of one finished task: its results (not the process's own), then its stdout. */
export function plainResults(task: Task): { stdout: string; stderr: string } {
  const { 'return-code': _code, stdout, stderr, ...values } = task.results ?? {};
  const out = (Object.keys(values).length ? yaml(sortDeep(values)) : '') + (typeof stdout === 'string' ? stdout : '');
  return { stdout: out, stderr: typeof stderr === 'string' ? stderr : '' };
}

/** `Running operation 1 with 2 tasks` and a line per task. */
export function describeQueued(operation: string, tasks: { id: string; unit: string }[]): string {
  const lines = tasks.map((t) => `  - task ${t.id} on ${unitTag(t.unit)}\n`).join('');
  return `operation ${operation} with ${tasks.length} task${tasks.length === 1 ? '' : 's'}\n${lines}`;
}
