// One task (an action or `exec`): taken (pending → running) before anything runs, so a task
// cancelled meanwhile never runs; its outcome written whatever happens. A failed action never
// puts the unit in error (Juju's https://github.com/juju/juju/blob/3.6/internal/worker/uniter/operation/runaction.go).
import type { Task } from '#shared/domain/operations.js';
import { AgentApiError } from '../../api-client.js';
import { ActionState } from '../action-state.js';
import { hookEnvironment, newContextId } from '../hook-env.js';
import { runTask } from '../task-process.js';
import { OPERATION, type StepOf, type UnitContext } from '../unit-context.js';
import { environmentOf, hookContextOf } from './hook-surroundings.js';

export async function runAction(ctx: UnitContext, step: StepOf<'run-action'>): Promise<void> {
  const { api, unitName } = ctx.deps;
  const id = step.task;
  const release = await ctx.deps.hookLock.lock();
  try {
    if (ctx.stopping) return;
    const task = await api.call<Task>('start-task', { unit: unitName, task: id });
    if (task.status !== 'running') {
      // Cancelled, or finished by an earlier run of this agent: the view is behind.
      await ctx.deps.view.refresh();
      return;
    }
    ctx.save({ ...ctx.local, actionInFlight: id });
    ctx.status.set({ agent: { current: 'executing', message: `running action ${task.action}` } });
    const view = await ctx.view();
    const contextId = newContextId(unitName, task.action);
    const action = new ActionState(task.action, { id, unit: unitName, parameters: task.parameters }, api);
    const hookCtx = hookContextOf(ctx, undefined, contextId, view, action);
    const { secret, address } = await ctx.tools.open(contextId, hookCtx);
    let ran;
    try {
      const env = hookEnvironment({ ...environmentOf(ctx, view, contextId, secret, address), action: { name: task.action, id } });
      ran = await runTask({
        task,
        charmDir: ctx.charmDir,
        env,
        onLine: (line) => ctx.deps.log.log(unitName, 'DEBUG', `unit.${unitName}.${task.action}`, line),
      });
    } finally {
      await ctx.tools.close(contextId);
    }
    if (ctx.shuttingDown && ran.signal !== null) return; // killed with us: stays in flight, failed on restart
    await action.settled();
    let failure = action.failure ?? ran.failure;
    if (!failure) {
      try {
        await hookCtx.flush();
      } catch (e) {
        // Any answer fails the task, not the agent (as a hook's commit, run-hook.ts).
        if (!(e instanceof AgentApiError)) throw e;
        failure = `cannot commit the action's changes: ${e.message}`;
      }
    }
    await api.call('finish-task', {
      unit: unitName,
      task: id,
      status: failure ? 'failed' : 'completed',
      ...(failure ? { message: failure } : {}),
      results: { ...action.results, ...ran.results },
    });
    ctx.save({ ...ctx.local, actionInFlight: undefined });
    ctx.logger.info(OPERATION, `ran "${task.action}" action (task ${id})${failure ? `: failed: ${failure}` : ''}`);
    if (ctx.local.error) await ctx.reportError(ctx.local.error);
    await ctx.deps.view.refresh();
  } finally {
    release();
  }
}

export async function failInterruptedAction(ctx: UnitContext, step: StepOf<'fail-interrupted-action'>): Promise<void> {
  // Juju fails a task its agent was running when it stopped: it may have done part of its work.
  await ctx.deps.api.call('finish-task', {
    unit: ctx.deps.unitName,
    task: step.task,
    status: 'failed',
    message: 'action terminated: the unit agent stopped while it ran',
    results: {},
  });
  ctx.save({ ...ctx.local, actionInFlight: undefined });
  ctx.logger.error(OPERATION, `task ${step.task} was interrupted: the agent stopped while it ran`);
  await ctx.deps.view.refresh();
}
