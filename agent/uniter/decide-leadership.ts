// The leadership rules of the unit agent's decision (agent/uniter/decide.ts), in Juju's order
// (https://github.com/juju/juju/blob/3.6/worker/uniter/leadership/resolver.go):
// - install → leader-elected (on the leader) or leader-settings-changed (on the others, once)
//   → config-changed → start;
// - a free lease, or one that has run out (its holder did not renew it), is claimed;
// - the leader renews its lease when due, before anything else and even in an error state, as
//   Juju's leadership tracker does apart from the hooks;
// - the unit that holds the lease and has not run leader-elected for it runs it;
// - a leader that lost its lease is one no more (drover runs no leader-deposed: Juju 3 dropped it);
// - followers run leader-settings-changed when the leader settings change;
// - a Dying leader resigns: it releases its lease so that another unit takes over at once.
import type { Unit } from '#shared/domain/entities.js';
import type { LeadershipView } from '#shared/domain/leadership.js';
import type { LocalState } from './local-state.js';

export type LeadershipStep =
  | { kind: 'claim-leadership' }
  | { kind: 'resign-leadership' }
  /** Another unit holds the lease: forget being leader (no hook). */
  | { kind: 'deposed' }
  | { kind: 'run-hook'; hook: { kind: 'leader-elected' | 'leader-settings-changed'; leaderSettingsVersion: number } };

/** For an Alive, installed unit: the leadership step owed, if any. */
export function aliveLeadershipStep(unitName: string, local: LocalState, view: LeadershipView | undefined): LeadershipStep | undefined {
  if (!view) return undefined;
  const holds = view.holder === unitName;
  if (holds && !local.leader) return { kind: 'run-hook', hook: { kind: 'leader-elected', leaderSettingsVersion: view.settingsVersion } };
  if (!holds && view.claimable) return { kind: 'claim-leadership' };
  if (holds) return undefined;
  if (local.leader) return { kind: 'deposed' };
  if (view.holder !== undefined && local.leaderSettingsVersion !== view.settingsVersion) {
    return { kind: 'run-hook', hook: { kind: 'leader-settings-changed', leaderSettingsVersion: view.settingsVersion } };
  }
  return undefined;
}

/** For a unit that is no longer Alive: resign if it leads, so failover does not wait for the lease to run out. */
export function dyingLeadershipStep(unitName: string, local: LocalState, view: LeadershipView | undefined): LeadershipStep | undefined {
  if (local.leader || view?.holder === unitName) return { kind: 'resign-leadership' };
  return undefined;
}

/**
 * Whether an Alive unit holding the lease (in the view) must renew it now. Held is enough, with
 * or without leader-elected run: a leader whose leader-elected failed stays leader, as in Juju.
 */
export function renewLeadershipStep(unit: Unit, view: LeadershipView | undefined, due: boolean | undefined): boolean {
  return due === true && unit.life === 'alive' && view?.holder === unit.name;
}
