// Operations and tasks in the table (shared/domain/operations.ts): queueing, the agent's steps,
// and the reads `drover show-task`, `show-operation` and `operations` need.
import type { Application, Unit } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import { byTaskId, type Operation, type Task, type TaskLogEntry } from '../../domain/operations.js';
import { refs } from '../../domain/plan.js';
import { planEnqueueOperation, TASK_SEQUENCE, type EnqueueIntent, type EnqueueResult } from '../../domain/plans/enqueue-operation.js';
import { planCancelTask, planFinishTask, planLogTask, planStartTask, type TaskOutcome } from '../../domain/plans/task-progress.js';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, collections, INDEX, refFromKey, type Key } from '../engine/keys.js';
import { getEach, getItem, getMany, getSequence, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export const getTask = (store: Store, id: string) => getItem<Task>(store, refs.task(id));
export const getOperation = (store: Store, id: string) => getItem<Operation>(store, refs.operation(id));

export async function enqueueOperation(store: Store, intent: EnqueueIntent): Promise<EnqueueResult> {
  return runOperation(store, `cannot queue action "${intent.action}"`, async (store) => {
    const [units, taskSequence] = await Promise.all([getEach<Unit>(store, intent.units.map(refs.unit)), getSequence(store, TASK_SEQUENCE)]);
    const names = [...new Set(units.filter((u): u is Unit => !!u).map((u) => u.application))];
    const applications = await getMany<Application>(store, names.map(refs.application));
    return planEnqueueOperation({ units, applications, taskSequence }, intent, store.now().toISOString());
  });
}

export async function startTask(store: Store, id: string): Promise<Task> {
  return runOperation(store, `cannot start task ${id}`, async (store) =>
    planStartTask(await getTask(store, id), id, store.now().toISOString()),
  );
}

/**
 * A unit still lists a task whose item has expired (TTL) or never was: it leaves the unit's queue,
 * so the agent does not ask for it forever.
 */
export async function forgetPendingTask(store: Store, unit: string, id: string): Promise<void> {
  await runOperation(store, `cannot forget task ${id}`, async (store) => {
    const [u, task] = await Promise.all([getUnit(store, unit), getTask(store, id)]);
    if (!u?.pendingTasks?.includes(id) || task) return { changes: [], result: undefined };
    return {
      changes: [
        // Ids are never reused (one sequence), so a task found absent stays absent: nothing to assert.
        { op: 'update', ref: refs.unit(unit), removeFromSet: { pendingTasks: [id] }, expect: { contains: { pendingTasks: id } } },
      ],
      result: undefined,
    };
  });
}

export async function logTask(store: Store, id: string, message: string): Promise<void> {
  const entry: TaskLogEntry = { timestamp: store.now().toISOString(), message };
  await runOperation(store, `cannot log to task ${id}`, async (store) => planLogTask(await getTask(store, id), id, entry));
}

export async function finishTask(store: Store, id: string, outcome: TaskOutcome): Promise<Task> {
  return runOperation(store, `cannot finish task ${id}`, async (store) => {
    const task = await getTask(store, id);
    const unit = task ? await getUnit(store, task.unit) : undefined;
    return planFinishTask(task, id, outcome, unit !== undefined, store.now().toISOString());
  });
}

export async function cancelTask(store: Store, id: string): Promise<Task> {
  return runOperation(store, `cannot cancel task ${id}`, async (store) => {
    const task = await getTask(store, id);
    const unit = task ? await getUnit(store, task.unit) : undefined;
    return planCancelTask(task, id, unit !== undefined, store.now().toISOString());
  });
}

export async function readTask(store: Store, id: string): Promise<Task> {
  const task = await getTask(store, id);
  if (!task) throw notFound(`task ${id} not found`);
  return task;
}

export interface OperationView extends Operation {
  taskItems: Task[];
}

export async function readOperation(store: Store, id: string): Promise<OperationView> {
  const operation = await getOperation(store, id);
  if (!operation) throw notFound(`operation ${id} not found`);
  const taskItems = await getMany<Task>(store, [...operation.tasks].sort(byTaskId).map(refs.task));
  return { ...operation, taskItems };
}

/** The latest operations, newest first (Juju's list-operations shows the last 50 by default). */
export async function listOperations(store: Store, limit = 50): Promise<OperationView[]> {
  // The index sorts by padded id: newest first is one Query read backwards, however many there are.
  const out = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      IndexName: INDEX.byCollection,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.collectionPk },
      ExpressionAttributeValues: { ':pk': collections.operations(store.model) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  const ids = (out.Items ?? []).map((i) => refFromKey(store.model, i as Key)).flatMap((r) => (r?.kind === 'operation' ? [r.id] : []));
  const operations = await getMany<Operation>(store, ids.map(refs.operation));
  const tasks = await getMany<Task>(store, operations.flatMap((o) => o.tasks).map(refs.task));
  return operations.map((o) => ({ ...o, taskItems: tasks.filter((t) => t.operation === o.id).sort((a, b) => byTaskId(a.id, b.id)) }));
}
