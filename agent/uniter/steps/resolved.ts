// `drover resolved` on a unit in error: run the failed hook again, or (--no-retry) treat it as
// successful without running it. As Juju's uniter does, the agent clears the resolved flag once
// it acts on it (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/resolver.go).
import { hookName } from '../hooks.js';
import { afterHook } from '../local-state.js';
import { OPERATION, type StepOf, type UnitContext } from '../unit-context.js';
import { runHook } from './run-hook.js';

export async function retryHook(ctx: UnitContext, step: StepOf<'retry-hook'>): Promise<void> {
  const { api, unitName } = ctx.deps;
  await api.call('clear-resolved', { unit: unitName });
  ctx.save({ ...ctx.local, error: undefined });
  ctx.logger.info(OPERATION, `retrying hook "${hookName(step.hook)}" (resolved)`);
  await ctx.deps.view.refresh();
  return runHook(ctx, step.hook);
}

export async function skipHook(ctx: UnitContext, step: StepOf<'skip-hook'>): Promise<void> {
  const { api, unitName } = ctx.deps;
  // `resolved --no-retry`: "treat the failed hook as successful without running it".
  ctx.save(afterHook({ ...ctx.local, error: undefined }, step.hook));
  await api.call('clear-resolved', { unit: unitName });
  ctx.logger.info(OPERATION, `skipped "${hookName(step.hook)}" hook (resolved --no-retry)`);
  await ctx.deps.view.refresh();
}

export async function clearResolved(ctx: UnitContext): Promise<void> {
  const { api, unitName } = ctx.deps;
  await api.call('clear-resolved', { unit: unitName });
  await ctx.deps.view.refresh();
}
