// Entering and leaving a relation's scope, and forgetting a relation state no longer has
// (Juju's https://github.com/juju/juju/blob/3.6/internal/worker/uniter/relation/statetracker.go).
import { isPeerRelation } from '#shared/domain/plans/app-settings.js';
import { MODULE, type StepOf, type UnitContext } from '../unit-context.js';

export async function enterScope(ctx: UnitContext, step: StepOf<'enter-scope'>): Promise<void> {
  const { api, unitName } = ctx.deps;
  // Juju's "Charms in action" (https://github.com/juju/juju/blob/7f5ca4e9229c4320911ac5436e489fd1f59d88c7/doc/charms-in-action.txt):
  // "Write initial relation settings (just one value, private-address),
  // to ensure that they will be available to observers before they're triggered by the
  // next step; Signal its existence" — enter-scope does both in one transaction.
  const settings = { 'private-address': ctx.addresses(ctx.deps.view.current).private };
  await api.call('enter-scope', { unit: unitName, relation: step.relation.key, settings });
  ctx.save({
    ...ctx.local,
    relations: {
      ...ctx.local.relations,
      [step.relation.key]: {
        id: step.relation.id,
        endpoint: step.endpoint,
        members: {},
        created: false,
        ...(isPeerRelation(step.relation) ? { peer: true } : {}),
      },
    },
  });
  ctx.logger.info(MODULE, `joined relation "${step.relation.key}"`);
  ctx.members.markDirty(step.relation.key);
  await ctx.deps.view.refresh();
}

export async function leaveScope(ctx: UnitContext, step: StepOf<'leave-scope'>): Promise<void> {
  const { api, unitName } = ctx.deps;
  await api.call('leave-scope', { unit: unitName, relation: step.relation });
  const { [step.relation]: _left, ...relations } = ctx.local.relations;
  ctx.save({ ...ctx.local, relations });
  ctx.logger.info(MODULE, `left relation "${step.relation}"`);
  await ctx.deps.view.refresh();
}

export async function forgetRelation(ctx: UnitContext, step: StepOf<'forget-relation'>): Promise<void> {
  const { [step.relation]: _gone, ...relations } = ctx.local.relations;
  ctx.save({ ...ctx.local, relations });
}
