// Leadership steps: claim the lease, renew it while leading, resign it when dying, forget it when
// deposed (Juju's https://github.com/juju/juju/blob/3.6/internal/worker/uniter/operation/leader.go).
import { MODULE, type UnitContext } from '../unit-context.js';

/** After a refused claim, how long before the same view may make the agent claim again. */
export const CLAIM_RETRY_MS = 5_000;

export async function claimLeadership(ctx: UnitContext): Promise<void> {
  const { unitName, view } = ctx.deps;
  const since = view.generation;
  const result = await ctx.leadership.claim();
  ctx.logger.info(MODULE, result.leader ? 'claimed leadership' : `leadership is held by "${result.holder ?? 'nobody'}"`);
  // The answer says who holds the lease now: the view learns it without being read again (the
  // lease's own change hints the other units of the application, not this one's need).
  const application = view.current?.units.find((u) => u.name === unitName)?.application;
  if (application !== undefined && result.holder !== undefined) {
    const holder = result.holder;
    view.amend(
      (current) => ({
        ...current,
        leadership: current.leadership?.map((l) =>
          l.application === application
            ? { ...l, holder, claimable: false, ...(result.expiresAt ? { expiresAt: result.expiresAt } : {}) }
            : l,
        ),
      }),
      // A lease this unit was granted is its own until it releases it (no newer read can say
      // otherwise); a refusal names a holder that may have released the lease since.
      result.leader ? undefined : since,
    );
  } else await view.refresh();
  // A claim the view still calls possible (a stale view, a race): do not hammer the API.
  if (!result.leader) await ctx.signal.wait(CLAIM_RETRY_MS);
}

export async function renewLeadership(ctx: UnitContext): Promise<void> {
  const { unitName, view } = ctx.deps;
  // Every ~4.7 min of a leader's life: DEBUG, not shipped (a shipped line costs a request).
  const result = await ctx.leadership.claim();
  if (result.leader) {
    ctx.deps.log.log(unitName, 'DEBUG', MODULE, 'renewed leadership', { ship: false });
    return;
  }
  // Lost (it ran out and another unit took it): the view shows the new holder, and the
  // unit is deposed. A view that still shows this unit must not make it hammer the API.
  ctx.logger.info(MODULE, `leadership is held by "${result.holder ?? 'nobody'}"`);
  await view.refresh();
  if (view.current?.leadership?.some((l) => l.holder === unitName)) await ctx.signal.wait(CLAIM_RETRY_MS);
}

export async function resignLeadership(ctx: UnitContext): Promise<void> {
  ctx.logger.info(MODULE, 'unit is dying: resigning leadership');
  await ctx.leadership.release();
  ctx.save({ ...ctx.local, leader: false });
  await ctx.deps.view.refresh();
}

export async function deposed(ctx: UnitContext): Promise<void> {
  ctx.logger.info(MODULE, 'another unit is leader now');
  ctx.leadership.forget();
  // Its application's secrets are no longer its to rotate or remove.
  ctx.secrets.markStale();
  ctx.save({ ...ctx.local, leader: false });
}
