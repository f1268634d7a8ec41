// The unit's own life: set Dying when its application is, a subordinate set Dying when nothing
// holds it, and set Dead once its relations are departed and its hooks run (Juju's
// https://github.com/juju/juju/blob/b3f05534d8f712f5c14c82b9b967bc3c27804814/doc/lifecycles.txt).
import { MODULE, type UnitContext } from '../unit-context.js';

export async function destroyUnit(ctx: UnitContext): Promise<void> {
  // "the Unit Agents (UAs) for each unit of a service set their corresponding units to Dying
  // when they detect their service Dying".
  ctx.logger.info(MODULE, 'application is dying: setting the unit dying');
  await ctx.deps.api.call('destroy-unit', { unit: ctx.deps.unitName });
  await ctx.deps.view.refresh();
}

export async function subordinateDying(ctx: UnitContext): Promise<void> {
  ctx.logger.info(MODULE, 'no alive principal or container relation holds this subordinate: setting it dying');
  await ctx.deps.api.call('subordinate-dying', { unit: ctx.deps.unitName });
  await ctx.deps.view.refresh();
}

export async function unitDead(ctx: UnitContext): Promise<void> {
  ctx.logger.info(MODULE, 'all relations departed and hooks run: setting the unit dead');
  // Report (with the unit's lines) while the unit still exists: once it is removed the
  // controller refuses them, and debug-log would never show its stop hook.
  await ctx.status.flush();
  await ctx.deps.log.drain();
  await ctx.deps.api.call('unit-dead', { unit: ctx.deps.unitName });
  await ctx.deps.view.refresh();
}
