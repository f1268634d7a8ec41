// Operations and tasks as `drover show-task`, `show-operation` and `operations` read them (shared/domain/operations.ts);
// queueing and the agent's steps are in shared/state/operations/action-tasks.ts.
import { notFound } from '../../domain/errors.js';
import { byTaskId, type Operation, type Task } from '../../domain/operations.js';
import { refs } from '../../domain/plan.js';
import { collections } from '../engine/keys.js';
import { getItem, getMany, listCollection } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export const getTask = (store: Store, id: string) => getItem<Task>(store, refs.task(id));

export const getOperation = (store: Store, id: string) => getItem<Operation>(store, refs.operation(id));

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
  const page = await listCollection(store, collections.operations(store.model), { limit, lastFirst: true });
  const ids = page.items.flatMap((r) => (r.kind === 'operation' ? [r.id] : []));
  const operations = await getMany<Operation>(store, ids.map(refs.operation));
  const tasks = await getMany<Task>(store, operations.flatMap((o) => o.tasks).map(refs.task));
  return operations.map((o) => ({ ...o, taskItems: tasks.filter((t) => t.operation === o.id).sort((a, b) => byTaskId(a.id, b.id)) }));
}
