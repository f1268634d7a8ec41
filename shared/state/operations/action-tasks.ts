// Operations and tasks in the table (shared/domain/operations.ts): queueing, the agent's steps,
// and the reads `drover show-task`, `show-operation` and `operations` need.
import type { Application, Unit } from '../../domain/entities.js';
import { type Task, type TaskLogEntry } from '../../domain/operations.js';
import { refs } from '../../domain/plan.js';
import { planEnqueueOperation, type EnqueueIntent, type EnqueueResult } from '../../domain/plans/enqueue-operation.js';
import {
  planCancelTask,
  planFinishTask,
  planForgetPendingTask,
  planLogTask,
  planStartTask,
  type TaskOutcome,
} from '../../domain/plans/task-progress.js';
import { getEach, getMany, getUnit } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { getTask } from '../queries/action-tasks.js';

export async function enqueueOperation(store: Store, intent: EnqueueIntent): Promise<EnqueueResult> {
  // The operation's and tasks' ids, kept across attempts.
  const reservations = new NumberReservations(store);
  return runOperation(store, `cannot queue action "${intent.action}"`, async (store) => {
    const units = await getEach<Unit>(store, intent.units.map(refs.unit));
    const names = [...new Set(units.filter((u): u is Unit => !!u).map((u) => u.application))];
    const applications = await getMany<Application>(store, names.map(refs.application));
    return reservations.plan((numbers) => planEnqueueOperation({ units, applications, numbers }, intent, store.now().toISOString()));
  });
}

export async function startTask(store: Store, id: string): Promise<Task> {
  return runOperation(store, `cannot start task ${id}`, async (store) =>
    planStartTask(await getTask(store, id), id, store.now().toISOString()),
  );
}

export async function forgetPendingTask(store: Store, unit: string, id: string): Promise<void> {
  await runOperation(store, `cannot forget task ${id}`, async (store) => {
    const [u, task] = await Promise.all([getUnit(store, unit), getTask(store, id)]);
    return planForgetPendingTask(u?.pendingTasks, task, unit, id);
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
