// The unit agent's decision: from what it remembers (LocalState) and what state says now
// (RemoteState), the one next thing to do. Pure, so every ordering rule is a table test.
//
// The rules, in the words docs/lifecycle-rules.md lists them with their tests (hooks and agents):
// - "The install hook always runs once, and only once, before any other hook."
// - "The config-changed hook always runs once immediately after the install hook ... It also runs
//   whenever the service configuration changes, and when recovering from transient unit agent
//   errors." "The start hook always runs once immediately after the first config-changed hook."
// - "If it returns a non-zero exit code, the agent enters an error state and awaits resolution."
// - A unit agent is responsible for "detecting its service's Dying state, and setting its own
//   Dying state", and "if a subordinate, detecting that no relations with its principal are
//   Alive, and setting its own Dying state"; for "detecting Alive relations incorporating its
//   service and entering their scopes" and "detecting Dying relations whose scope it has entered
//   and leaving their scope"; and, once Dying, for "leaving all its relation scopes; waiting for
//   all its subordinates to be removed; setting its own Dead state".
// - "The stop hook is the last hook to be run before the unit is destroyed ... The stop hook
//   will not run while relations remain to be broken."
// - "The upgrade-charm hook always runs once immediately after the charm directory contents have
//   been changed by an unforced charm upgrade operation ... but will not be run after a forced
//   upgrade from an existing error state. (Consequently, neither will the config-changed hook that
//   would ordinarily follow the upgrade-charm.)" "The config-changed hook always runs once
//   immediately after the install hook, and likewise after the upgrade-charm hook."
// - upgrade-charm also runs when the application's charmModifiedVersion moves (a resource was
//   attached), after start, with the charm directory as it is, as Juju's uniter does.
// - remove: Juju 3 runs it once after stop, before the unit is set Dead.
// - secret hooks: Juju 3's secrets resolver, after leadership and before actions (a hook error first).
// - update-status: Juju 3 runs it every update-status-hook-interval (jittered) once the unit has
//   started, when the uniter has nothing else to do.
// - storage hooks (decide-storage.ts): the storage present at install attached before install;
//   later storage once started; a Dying unit's storage detached before its relations and stop.
import type { Application, Relation, Unit } from '#shared/domain/entities.js';
import type { LeadershipView } from '#shared/domain/leadership.js';
import { aliveLeadershipStep, dyingLeadershipStep, renewLeadershipStep } from './decide-leadership.js';
import { storageStep, type StorageStep } from './decide-storage.js';
import { unitStorageOf } from '../storage/unit-storage.js';
import type { Hook, SecretHook } from './hooks.js';
import type { LocalRelation, LocalState } from './local-state.js';
import { endpointOf, mayJoin, principalHoldsSubordinate } from './scope-rules.js';
import { isPeerRelation } from '#shared/domain/plans/app-settings.js';

export interface RemoteState {
  /** Undefined once the unit is gone from state. */
  unit?: Unit;
  application?: Application;
  /** A subordinate's principal. */
  principal?: Unit;
  /** The relations of the unit's application. */
  relations: Relation[];
  /**
   * For each relation whose scope the unit is in: the remote units it observes there, with
   * their settings versions. Absent for a relation not read yet.
   */
  members: Record<string, Record<string, number>>;
  /** For each relation in scope: the version of the other side's application bag. */
  appVersions?: Record<string, number>;
  /** The update-status timer has fired (update-status-timer.ts). */
  updateStatusDue?: boolean;
  /** The leadership of the unit's application, as the view shows it. */
  leadership?: LeadershipView;
  /** The leader's lease is due for renewal (the tracker, agent/uniter/leadership.ts). */
  renewLeadershipDue?: boolean;
  /** The secret hook due (agent/uniter/secret-schedule.ts, which asks shared/domain/secret-hooks.ts). */
  secretHook?: SecretHook;
}

export type Step =
  | { kind: 'run-hook'; hook: Hook }
  /** `resolved` (retry-hooks): clear the mode and run the failed hook again. */
  | { kind: 'retry-hook'; hook: Hook }
  /** `resolved --no-retry` (no-hooks): clear the mode and carry on as if the hook had succeeded. */
  | { kind: 'skip-hook'; hook: Hook }
  /** A resolved mode left over (the agent had already acted on it when it died). */
  | { kind: 'clear-resolved' }
  /**
   * Replace the charm directory's contents with the application's charm; `runHooks`: then run
   * upgrade-charm and config-changed (not before install, which runs from the new charm anyway,
   * nor after a forced upgrade from an error state).
   */
  | { kind: 'replace-charm'; charmUrl: string; charmArchive?: string; runHooks: boolean }
  /** Tell state which charm the unit runs (status shows `upgrading-from` while it differs). */
  | { kind: 'report-charm'; charmUrl: string }
  | { kind: 'enter-scope'; relation: Relation; endpoint: string }
  | { kind: 'leave-scope'; relation: string }
  /** Local memory of a relation whose scope the unit is no longer in. */
  | { kind: 'forget-relation'; relation: string }
  /** Claim the application's free (or run-out) leadership lease. */
  | { kind: 'claim-leadership' }
  /** The leader extends its lease before its guarantee runs short. */
  | { kind: 'renew-leadership' }
  /** A Dying leader releases its lease. */
  | { kind: 'resign-leadership' }
  /** Another unit leads now: forget being leader. */
  | { kind: 'deposed' }
  | { kind: 'destroy-unit' }
  | { kind: 'subordinate-dying' }
  | { kind: 'unit-dead' }
  /**
   * Run one queued task (an action, or juju-exec) between hooks. Juju's actions resolver
   * (worker/uniter/actions/resolver.go): "We can still run actions if the unit is in a hook
   * error state."
   */
  | { kind: 'run-action'; task: string }
  /** A task that was running when the agent stopped: it ends failed, and is never run twice. */
  | { kind: 'fail-interrupted-action'; task: string }
  | Exclude<StorageStep, { kind: 'run-hook' | 'wait' }>
  | { kind: 'wait'; why: 'idle' | 'error' | 'subordinates' | 'members' | 'storage' }
  /** The unit is Dead or removed: "a unit so terminated will just stop, dead". */
  | { kind: 'done'; why: string };

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const hook = (h: Hook): Step => ({ kind: 'run-hook', hook: h });

const replaceCharm = (application: Application, runHooks: boolean): Step => ({
  kind: 'replace-charm',
  charmUrl: application.charmUrl,
  ...(application.charmArchive ? { charmArchive: application.charmArchive } : {}),
  runHooks,
});

/**
 * The next hook of one relation whose scope the unit is in. The order is Juju's per-relation
 * resolver: the -changed owed after a -joined; departures; -broken; new -joined; other -changed;
 * units in name order. "when foo-relation-joined is run for unit bar/99 in relation id foo:123,
 * the only guarantee is that the next hook to be run in relation id foo:123 will be
 * foo-relation-changed for bar/99."
 *
 * A peer relation is never broken: Juju 3's resolver runs -departed for each peer a departing
 * unit knows, and no -broken ("Since you cannot depart peer relations we can safely ignore this
 * hook", https://github.com/juju/juju/blob/3.6/internal/worker/uniter/relation/resolver.go).
 */
export function relationStep(
  unitName: string,
  relation: { key: string; id: number; endpoint: string; peer?: boolean },
  local: LocalRelation | undefined,
  members: Record<string, number> | undefined,
  departing: { self: boolean } | undefined,
  appVersion?: number,
): Step | undefined {
  const base = { relation: relation.key, relationId: relation.id, endpoint: relation.endpoint };
  const known = Object.keys(local?.members ?? {}).sort(byName);
  const seen = local?.members ?? {};
  if (departing) {
    // "For every known related unit ... run the relation-departed hook. Run the relation-broken
    // hook. depart from its scope in the relation."
    const next = known[0];
    if (next !== undefined)
      return hook({ kind: 'relation-departed', ...base, remoteUnit: next, departingUnit: departing.self ? unitName : next });
    if (!local?.broken && relation.peer !== true) return hook({ kind: 'relation-broken', ...base });
    return { kind: 'leave-scope', relation: relation.key };
  }
  // Juju ≥ 2.8: relation-created runs once, before any -joined (ops's RelationCreatedEvent).
  if (local?.created === false) return hook({ kind: 'relation-created', ...base });
  if (!members) return { kind: 'wait', why: 'members' };
  const owed = known.find((u) => seen[u] === null);
  if (owed !== undefined) return hook({ kind: 'relation-changed', ...base, remoteUnit: owed, version: members[owed] ?? 0 });
  const gone = known.find((u) => !Object.hasOwn(members, u));
  if (gone !== undefined) return hook({ kind: 'relation-departed', ...base, remoteUnit: gone, departingUnit: gone });
  const joined = Object.keys(members)
    .sort(byName)
    .find((u) => !Object.hasOwn(seen, u));
  if (joined !== undefined) return hook({ kind: 'relation-joined', ...base, remoteUnit: joined });
  const changed = known.find((u) => (members[u] ?? 0) > (seen[u] ?? 0));
  if (changed !== undefined) return hook({ kind: 'relation-changed', ...base, remoteUnit: changed, version: members[changed] ?? 0 });
  // The other side's leader changed its application's bag: -changed with no remote unit (Juju ≥ 2.7).
  if (appVersion !== undefined && appVersion > (local?.appVersion ?? 0)) return hook({ kind: 'relation-changed', ...base, appVersion });
  return undefined;
}

/** The unit's next queued task, oldest first; none before install (there is no charm to run it yet). */
export function nextTask(local: LocalState, unit: Unit): Step | undefined {
  if (!local.installed) return undefined;
  const next = [...(unit.pendingTasks ?? [])].sort((a, b) => Number(a) - Number(b))[0];
  return next === undefined ? undefined : { kind: 'run-action', task: next };
}

export function nextStep(local: LocalState, remote: RemoteState): Step {
  const { unit, application } = remote;
  if (!unit) return { kind: 'done', why: 'the unit has been removed' };
  if (unit.life === 'dead') return { kind: 'done', why: 'the unit is dead' };
  if (local.actionInFlight !== undefined) return { kind: 'fail-interrupted-action', task: local.actionInFlight };
  if (renewLeadershipStep(unit, remote.leadership, remote.renewLeadershipDue)) return { kind: 'renew-leadership' };

  // Units learn of an upgrade by comparing charm URLs: the upgrade never touches them in state.
  const newCharm = application !== undefined && local.charmUrl !== application.charmUrl;

  if (local.error) {
    if (unit.resolved === 'retry-hooks') return { kind: 'retry-hook', hook: local.error };
    if (unit.resolved === 'no-hooks') return { kind: 'skip-hook', hook: local.error };
    // An unforced upgrade waits for the error to be resolved; a forced one replaces the charm and
    // leaves the unit in its error state, running neither upgrade-charm nor config-changed.
    if (newCharm && application.forceUnits) return replaceCharm(application, false);
    return nextTask(local, unit) ?? { kind: 'wait', why: 'error' };
  }
  if (unit.resolved) return { kind: 'clear-resolved' };
  // Juju's secrets resolver goes after leadership's and before actions: installed, Alive, no hook in error.
  const secretDue = remote.secretHook && local.installed && unit.life === 'alive';
  if (secretDue && !aliveLeadershipStep(unit.name, local, remote.leadership)) return hook(remote.secretHook!);
  // Queued tasks go before hooks still owed: the user is waiting for them.
  const task = nextTask(local, unit);
  if (task) return task;

  const alive = unit.life === 'alive';
  if (alive && application && application.life !== 'alive') return { kind: 'destroy-unit' };
  if (alive && unit.principal !== undefined && !principalHoldsSubordinate(unit, remote.principal, remote.relations)) {
    return { kind: 'subordinate-dying' };
  }

  if (newCharm) return replaceCharm(application, local.installed);
  if (local.charmUrl !== undefined && unit.charmUrl !== local.charmUrl) return { kind: 'report-charm', charmUrl: local.charmUrl };
  const charmModifiedVersion = application?.charmModifiedVersion ?? 0;
  // The version a hook runs with, named only once a resource has changed (absent: 0).
  const withVersion = charmModifiedVersion ? { charmModifiedVersion } : {};
  if (local.upgradeHookPending) return hook({ kind: 'upgrade-charm', ...withVersion });

  const storage = storageStep(local, unitStorageOf(unit), alive);
  if (alive) {
    if (!local.installed) return storage ?? hook({ kind: 'install', ...withVersion });
    const leadership = aliveLeadershipStep(unit.name, local, remote.leadership);
    if (leadership) return leadership;
    if (local.configVersion === undefined) return hook({ kind: 'config-changed', configVersion: application?.configVersion ?? 0 });
    if (!local.started) return hook({ kind: 'start' });
    if (storage) return storage;
    // A resource changed since the unit's install or last upgrade-charm (attach-resource): Juju's
    // uniter runs upgrade-charm, the charm directory untouched, then config-changed.
    if (charmModifiedVersion !== (local.charmModifiedVersion ?? 0)) return hook({ kind: 'upgrade-charm', ...withVersion });
  }

  if (!alive) {
    const resign = dyingLeadershipStep(unit.name, local, remote.leadership);
    if (resign) return resign;
    if (storage) return storage;
  }

  for (const key of Object.keys(local.relations).sort()) {
    if (!unit.scopes.includes(key)) return { kind: 'forget-relation', relation: key };
  }

  if (alive && application && (application.configVersion !== local.configVersion || local.recovering || local.configChangePending)) {
    return hook({ kind: 'config-changed', configVersion: application.configVersion });
  }

  const relations = [...remote.relations].sort((a, b) => a.id - b.id);
  let waitingForMembers = false;
  for (const relation of relations) {
    const endpoint = endpointOf(relation, unit.application);
    if (!endpoint) continue;
    if (!unit.scopes.includes(relation.key)) {
      if (alive && relation.life === 'alive' && mayJoin(unit, relation)) return { kind: 'enter-scope', relation, endpoint: endpoint.name };
      continue;
    }
    // "A unit will depart a relation when either the relation or the unit itself is marked for termination."
    const departing = !alive || relation.life !== 'alive' ? { self: !alive } : undefined;
    const step = relationStep(
      unit.name,
      { key: relation.key, id: relation.id, endpoint: endpoint.name, peer: isPeerRelation(relation) },
      local.relations[relation.key],
      remote.members[relation.key],
      departing,
      remote.appVersions?.[relation.key],
    );
    if (step?.kind === 'wait') waitingForMembers = true;
    else if (step) return step;
  }
  // In scope of a relation the view no longer lists (it cannot be removed while the unit is in
  // its scope, so only a stale view shows this): depart it with what is remembered.
  for (const key of unit.scopes) {
    if (relations.some((r) => r.key === key)) continue;
    const known = local.relations[key];
    if (!known) return { kind: 'leave-scope', relation: key };
    const step = relationStep(unit.name, { key, id: known.id, endpoint: known.endpoint, peer: known.peer }, known, undefined, {
      self: !alive,
    });
    if (step) return step;
  }
  if (waitingForMembers) return { kind: 'wait', why: 'members' };
  // Juju runs update-status on its timer only when nothing else is to be done, and only for a
  // started unit: never before start, nor in an error state (handled above), nor once Dying.
  if (alive && remote.updateStatusDue && local.started && !local.stopped) return hook({ kind: 'update-status' });
  if (alive) return { kind: 'wait', why: 'idle' };

  // Dying, and out of every scope: "waiting for all its subordinates to be removed".
  if (unit.subordinates.length > 0) return { kind: 'wait', why: 'subordinates' };
  if (local.installed && !local.stopped) return hook({ kind: 'stop' });
  // Juju 3's remove hook: "the last hook run before the unit is removed", once, after stop.
  if (local.installed && !local.removed) return hook({ kind: 'remove' });
  return { kind: 'unit-dead' };
}
