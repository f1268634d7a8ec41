// The unit agent's decisions (agent/uniter/decide.ts), in the words of Juju's charms-in-action.txt and
// lifecycles.txt (docs/lifecycle-rules.md, Sources).
import { describe, expect, it } from 'vitest';
import type { Relation, Unit } from '#shared/domain/entities.js';
import { nextStep, relationStep, type RemoteState } from '../../../agent/uniter/decide.js';
import { mayJoin, principalHoldsSubordinate } from '../../../agent/uniter/scope-rules.js';
import { afterHook, freshState, type LocalState } from '../../../agent/uniter/local-state.js';
import { application, linked, relation, unit } from '../plans/relation-fixtures.js';

const wp = application('wordpress', { configVersion: 3 });
const mysql = application('mysql');
const logging = application('logging');
const db = relation([wp, mysql], ['wordpress', 'mysql'], 7);
const [wpApp] = linked([wp, mysql], [db]) as [typeof wp];
const KEY = db.key;

/** A unit just deployed with the application's current charm. */
const deployed = (): LocalState => ({ ...freshState(), charmUrl: wpApp.charmUrl });

/** A unit that has installed, run config-changed for the current config, and started. */
const running = (fields: Partial<LocalState> = {}): LocalState => ({
  ...deployed(),
  installed: true,
  configVersion: 3,
  started: true,
  ...fields,
});

function remote(u: Partial<Unit> = {}, fields: Partial<RemoteState> = {}): RemoteState {
  return { unit: unit('wordpress/0', { charmUrl: wpApp.charmUrl, ...u }), application: wpApp, relations: [db], members: {}, ...fields };
}
const inScope = (members: Record<string, number>, u: Partial<Unit> = {}, relations: Relation[] = [db]) =>
  remote({ scopes: [KEY], ...u }, { relations, members: { [KEY]: members } });
const local = (members: Record<string, number | null>, fields: Partial<LocalState> = {}) =>
  running({ relations: { [KEY]: { id: 7, endpoint: 'db', members } }, ...fields });

const hookOf = (step: ReturnType<typeof nextStep>) => (step.kind === 'run-hook' ? step.hook : undefined);
const rel = { relation: KEY, relationId: 7, endpoint: 'db' };

describe('unit hooks', () => {
  it('"The install hook always runs once, and only once, before any other hook"', () => {
    expect(hookOf(nextStep(deployed(), remote()))).toEqual({ kind: 'install' });
    // even with a relation waiting to be joined
    expect(hookOf(nextStep(deployed(), remote({}, { relations: [db] })))).toEqual({ kind: 'install' });
  });

  it('"config-changed always runs once immediately after the install hook", then "start ... after the first config-changed"', () => {
    const installed = afterHook(deployed(), { kind: 'install' });
    expect(hookOf(nextStep(installed, remote()))).toEqual({ kind: 'config-changed', configVersion: 3 });
    const configured = afterHook(installed, { kind: 'config-changed', configVersion: 3 });
    expect(hookOf(nextStep(configured, remote()))).toEqual({ kind: 'start' });
    const started = afterHook(configured, { kind: 'start' });
    expect(nextStep(started, remote({}, { relations: [] }))).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('config-changed "runs whenever the service configuration changes"', () => {
    expect(hookOf(nextStep(running({ configVersion: 2 }), remote()))).toEqual({ kind: 'config-changed', configVersion: 3 });
  });

  it('config-changed runs "when recovering from transient unit agent errors"', () => {
    expect(hookOf(nextStep(running({ recovering: true }), remote({}, { relations: [] })))).toEqual({
      kind: 'config-changed',
      configVersion: 3,
    });
    expect(afterHook(running({ recovering: true }), { kind: 'config-changed', configVersion: 3 }).recovering).toBe(false);
  });
});

describe('errors', () => {
  const failed = running({ error: { kind: 'config-changed', configVersion: 3 } });

  it('"the agent enters an error state and awaits resolution": nothing else runs', () => {
    expect(nextStep(failed, remote({ life: 'dying' }))).toEqual({ kind: 'wait', why: 'error' });
  });

  it('resolved (retry-hooks) re-runs the failed hook; --no-retry (no-hooks) carries on without it', () => {
    expect(nextStep(failed, remote({ resolved: 'retry-hooks' }))).toEqual({ kind: 'retry-hook', hook: failed.error });
    expect(nextStep(failed, remote({ resolved: 'no-hooks' }))).toEqual({ kind: 'skip-hook', hook: failed.error });
  });

  it('a resolved mode left behind when not in error is cleared', () => {
    expect(nextStep(running(), remote({ resolved: 'retry-hooks' }))).toEqual({ kind: 'clear-resolved' });
  });
});

describe('relations', () => {
  it('"detecting Alive relations incorporating its service and entering their scopes"', () => {
    expect(nextStep(running(), remote())).toEqual({ kind: 'enter-scope', relation: db, endpoint: 'db' });
    expect(nextStep(running(), remote({}, { relations: [{ ...db, life: 'dying' }] }))).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('"The relation-joined hook always runs once when a related unit is first seen", then -changed for it', () => {
    expect(hookOf(nextStep(local({}), inScope({ 'mysql/0': 1 })))).toEqual({ kind: 'relation-joined', ...rel, remoteUnit: 'mysql/0' });
    expect(hookOf(nextStep(local({ 'mysql/0': null }), inScope({ 'mysql/0': 1 })))).toEqual({
      kind: 'relation-changed',
      ...rel,
      remoteUnit: 'mysql/0',
      version: 1,
    });
  });

  it('"the next hook to be run in relation id foo:123 will be foo-relation-changed" for the unit just joined', () => {
    // mysql/1 waits to join, mysql/0 has left: the owed -changed still comes first.
    expect(hookOf(nextStep(local({ 'mysql/0': null }), inScope({ 'mysql/1': 1 })))).toMatchObject({
      kind: 'relation-changed',
      remoteUnit: 'mysql/0',
    });
  });

  it('-changed runs again "whenever the related unit changes its settings", and not otherwise', () => {
    expect(hookOf(nextStep(local({ 'mysql/0': 1 }), inScope({ 'mysql/0': 2 })))).toEqual({
      kind: 'relation-changed',
      ...rel,
      remoteUnit: 'mysql/0',
      version: 2,
    });
    expect(nextStep(local({ 'mysql/0': 2 }), inScope({ 'mysql/0': 2 }))).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('"The relation-departed hook for a given unit always runs once when a related unit is no longer related"', () => {
    expect(hookOf(nextStep(local({ 'mysql/0': 1, 'mysql/1': 1 }), inScope({ 'mysql/1': 1 })))).toEqual({
      kind: 'relation-departed',
      ...rel,
      remoteUnit: 'mysql/0',
      departingUnit: 'mysql/0',
    });
    expect(
      afterHook(local({ 'mysql/0': 1 }), { kind: 'relation-departed', ...rel, remoteUnit: 'mysql/0' }).relations[KEY]?.members,
    ).toEqual({});
  });

  it('units are taken in name order: departures, then joins, then changes', () => {
    const step = nextStep(local({ 'mysql/2': 1, 'mysql/1': 1 }), inScope({ 'mysql/1': 1, 'mysql/0': 1 }));
    expect(hookOf(step)).toMatchObject({ kind: 'relation-departed', remoteUnit: 'mysql/2' });
    const joins = nextStep(local({ 'mysql/1': 1 }), inScope({ 'mysql/1': 5, 'mysql/0': 1, 'mysql/10': 1 }));
    expect(hookOf(joins)).toMatchObject({ kind: 'relation-joined', remoteUnit: 'mysql/0' });
  });

  it('departing a Dying relation: -departed for every known unit, then -broken, then leaving scope', () => {
    const dying = [{ ...db, life: 'dying' as const }];
    const members = { 'mysql/0': 1, 'mysql/1': 1 };
    expect(hookOf(nextStep(local({ 'mysql/0': 1, 'mysql/1': 1 }), inScope(members, {}, dying)))).toMatchObject({
      kind: 'relation-departed',
      remoteUnit: 'mysql/0',
    });
    expect(hookOf(nextStep(local({}), inScope(members, {}, dying)))).toEqual({ kind: 'relation-broken', ...rel });
    expect(
      nextStep(local({}, { relations: { [KEY]: { id: 7, endpoint: 'db', members: {}, broken: true } } }), inScope(members, {}, dying)),
    ).toEqual({
      kind: 'leave-scope',
      relation: KEY,
    });
  });

  it('"-broken ... may be the first and only hook to run for a given relation"', () => {
    expect(hookOf(nextStep(running(), inScope({}, {}, [{ ...db, life: 'dying' }])))).toEqual({ kind: 'relation-broken', ...rel });
  });

  it('forgets a relation it is no longer in scope of', () => {
    expect(nextStep(local({ 'mysql/0': 1 }), remote({ scopes: [] }, { relations: [] }))).toEqual({
      kind: 'forget-relation',
      relation: KEY,
    });
  });

  it("each unit observes the units of the other side: a subordinate joins only its own principal's container relation", () => {
    const mysqlLogging = relation([mysql, logging], ['logging:info', 'mysql'], 9);
    const wpLogging = relation([wp, logging], ['logging:info', 'wordpress'], 8);
    const sub = unit('logging/0', { principal: 'wordpress/0' });
    expect(mayJoin(sub, wpLogging)).toBe(true);
    expect(mayJoin(sub, mysqlLogging)).toBe(false);
    expect(mayJoin(unit('wordpress/0'), wpLogging)).toBe(true);
  });
});

describe('lifecycle duties', () => {
  it('"detecting its service\'s Dying state, and setting its own Dying state"', () => {
    expect(nextStep(running(), { ...remote(), application: { ...wpApp, life: 'dying' } })).toEqual({ kind: 'destroy-unit' });
  });

  it('a subordinate sets itself Dying when its principal is Dying or no Alive container relation with it remains', () => {
    const wpLogging = relation([wp, logging], ['logging:info', 'wordpress'], 8);
    const sub = unit('logging/0', { principal: 'wordpress/0' });
    const principal = unit('wordpress/0');
    expect(principalHoldsSubordinate(sub, principal, [wpLogging])).toBe(true);
    expect(principalHoldsSubordinate(sub, { ...principal, life: 'dying' }, [wpLogging])).toBe(false);
    expect(principalHoldsSubordinate(sub, principal, [{ ...wpLogging, life: 'dying' }])).toBe(false);
    const state: RemoteState = {
      unit: sub,
      application: application('logging'),
      principal,
      relations: [{ ...wpLogging, life: 'dying' }],
      members: {},
    };
    expect(nextStep(running({ configVersion: 0 }), state)).toEqual({ kind: 'subordinate-dying' });
  });

  it('a Dying unit departs its relations first, then waits for its subordinates, runs stop, then remove, and sets itself Dead', () => {
    const dyingIn = inScope({ 'mysql/0': 1 }, { life: 'dying' });
    expect(hookOf(nextStep(local({ 'mysql/0': 1 }), dyingIn))).toMatchObject({ kind: 'relation-departed', departingUnit: 'wordpress/0' });
    expect(nextStep(running(), remote({ life: 'dying', subordinates: ['logging/0'] }))).toEqual({ kind: 'wait', why: 'subordinates' });
    expect(hookOf(nextStep(running(), remote({ life: 'dying' })))).toEqual({ kind: 'stop' });
    expect(hookOf(nextStep(running({ stopped: true }), remote({ life: 'dying' })))).toEqual({ kind: 'remove' });
    const removed = afterHook(running({ stopped: true }), { kind: 'remove' });
    expect(nextStep(removed, remote({ life: 'dying' }))).toEqual({ kind: 'unit-dead' });
  });

  it('a unit leaving its peer relation runs -departed for each peer it knows and never -broken, as Juju 3.6', () => {
    const riak = application('riak');
    const ring = relation([riak], ['riak:ring'], 4);
    const ringRel = { relation: ring.key, relationId: 4, endpoint: 'ring' };
    const member = (u: Partial<Unit>) => unit('riak/0', { charmUrl: riak.charmUrl, scopes: [ring.key], ...u });
    const dyingIn = (members: Record<string, number>): RemoteState => ({
      unit: member({ life: 'dying' }),
      application: riak,
      relations: [ring],
      members: { [ring.key]: members },
    });
    const knows = (members: Record<string, number | null>, fields: Partial<LocalState['relations'][string]> = {}) =>
      running({
        charmUrl: riak.charmUrl,
        configVersion: riak.configVersion,
        relations: { [ring.key]: { id: 4, endpoint: 'ring', members, peer: true, ...fields } },
      });
    expect(hookOf(nextStep(knows({ 'riak/1': 1 }), dyingIn({ 'riak/1': 1 })))).toEqual({
      kind: 'relation-departed',
      ...ringRel,
      remoteUnit: 'riak/1',
      departingUnit: 'riak/0',
    });
    // Every peer departed: out of the scope, with no -broken; the same when the view has lost the relation.
    expect(nextStep(knows({}), dyingIn({ 'riak/1': 1 }))).toEqual({ kind: 'leave-scope', relation: ring.key });
    expect(nextStep(knows({}), { ...dyingIn({}), relations: [] })).toEqual({ kind: 'leave-scope', relation: ring.key });
    // The application going takes its peer relation Dying: still no -broken for any unit.
    const goneRing = { ...dyingIn({}), unit: member({}), relations: [{ ...ring, life: 'dying' as const }] };
    expect(nextStep(knows({}), goneRing)).toEqual({ kind: 'leave-scope', relation: ring.key });
  });

  it('a Dying unit never installed runs no hook at all', () => {
    expect(nextStep(deployed(), remote({ life: 'dying' }))).toEqual({ kind: 'unit-dead' });
  });

  it('"a unit so terminated will just stop, dead, and completely fail to run anything else ever again"', () => {
    expect(nextStep(running(), remote({ life: 'dead' }))).toMatchObject({ kind: 'done' });
    expect(nextStep(running(), { relations: [], members: {} })).toMatchObject({ kind: 'done' });
  });
});

describe('relationStep', () => {
  it('waits while the members of a relation are not read yet', () => {
    expect(relationStep('wordpress/0', { key: KEY, id: 7, endpoint: 'db' }, undefined, undefined, undefined)).toEqual({
      kind: 'wait',
      why: 'members',
    });
  });
});

describe('charm upgrades', () => {
  const upgraded = { ...wpApp, charmUrl: 'local:jammy/wordpress-1', charmArchive: 'sha-1' };
  const onUpgraded = (u: Partial<Unit> = {}) => remote({ charmUrl: wpApp.charmUrl, ...u }, { application: upgraded, relations: [] });

  it('"The upgrade-charm hook always runs once immediately after the charm directory contents have been changed by an unforced charm upgrade operation", then config-changed', () => {
    expect(nextStep(running(), onUpgraded())).toEqual({
      kind: 'replace-charm',
      charmUrl: 'local:jammy/wordpress-1',
      charmArchive: 'sha-1',
      runHooks: true,
    });
    const replaced = running({ charmUrl: 'local:jammy/wordpress-1', upgradeHookPending: true });
    const reported = onUpgraded({ charmUrl: 'local:jammy/wordpress-1' });
    expect(hookOf(nextStep(replaced, reported))).toEqual({ kind: 'upgrade-charm' });
    // "The config-changed hook always runs once immediately after ... the upgrade-charm hook."
    const afterUpgrade = afterHook(replaced, { kind: 'upgrade-charm' });
    expect(hookOf(nextStep(afterUpgrade, reported))).toEqual({ kind: 'config-changed', configVersion: 3 });
    const afterConfig = afterHook(afterUpgrade, { kind: 'config-changed', configVersion: 3 });
    expect(nextStep(afterConfig, reported)).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('reports the charm the unit now runs, so status stops showing it upgrading-from the old one', () => {
    const replaced = running({ charmUrl: 'local:jammy/wordpress-1', upgradeHookPending: true });
    expect(nextStep(replaced, onUpgraded())).toEqual({ kind: 'report-charm', charmUrl: 'local:jammy/wordpress-1' });
  });

  it('an unforced upgrade waits while the unit is in an error state', () => {
    expect(nextStep(running({ error: { kind: 'start' } }), onUpgraded())).toEqual({ kind: 'wait', why: 'error' });
  });

  it('"will not be run after a forced upgrade from an existing error state": the directory is replaced, the unit stays in error', () => {
    const forced = remote({}, { application: { ...upgraded, forceUnits: true }, relations: [] });
    const failed = running({ error: { kind: 'config-changed', configVersion: 3 } });
    expect(nextStep(failed, forced)).toEqual({
      kind: 'replace-charm',
      charmUrl: 'local:jammy/wordpress-1',
      charmArchive: 'sha-1',
      runHooks: false,
    });
    expect(nextStep({ ...failed, charmUrl: 'local:jammy/wordpress-1' }, forced)).toEqual({ kind: 'wait', why: 'error' });
  });

  it('a resource attached (charmModifiedVersion moved) runs upgrade-charm on a started unit, charm directory untouched, then config-changed', () => {
    const attached = remote({}, { application: { ...wpApp, charmModifiedVersion: 1 }, relations: [] });
    expect(hookOf(nextStep(running(), attached))).toEqual({ kind: 'upgrade-charm', charmModifiedVersion: 1 });
    const afterUpgrade = afterHook(running(), { kind: 'upgrade-charm', charmModifiedVersion: 1 });
    expect(afterUpgrade.charmModifiedVersion).toBe(1);
    expect(hookOf(nextStep(afterUpgrade, attached))).toEqual({ kind: 'config-changed', configVersion: 3 });
    const afterConfig = afterHook(afterUpgrade, { kind: 'config-changed', configVersion: 3 });
    expect(nextStep(afterConfig, { ...attached, relations: [] })).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('a unit installed with the resources as they are owes no upgrade-charm for them', () => {
    const attached = remote({}, { application: { ...wpApp, charmModifiedVersion: 2 }, relations: [] });
    expect(hookOf(nextStep(deployed(), attached))).toEqual({ kind: 'install', charmModifiedVersion: 2 });
    const installed = afterHook(deployed(), { kind: 'install', charmModifiedVersion: 2 });
    const configured = afterHook(installed, { kind: 'config-changed', configVersion: 3 });
    expect(hookOf(nextStep(configured, attached))).toEqual({ kind: 'start' });
    const started = afterHook(configured, { kind: 'start' });
    expect(nextStep(started, attached)).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('before install the new charm simply replaces the deployed one: install runs from it, with no upgrade-charm', () => {
    expect(nextStep(deployed(), onUpgraded())).toMatchObject({ kind: 'replace-charm', runHooks: false });
  });
});

describe('update-status', () => {
  const due = (u: Partial<Unit> = {}, fields: Partial<RemoteState> = {}) => remote(u, { relations: [], updateStatusDue: true, ...fields });

  it('runs when its timer is due and the started unit has nothing else to do', () => {
    expect(hookOf(nextStep(running(), due()))).toEqual({ kind: 'update-status' });
    expect(nextStep(running(), remote({}, { relations: [] }))).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('waits for every other hook: install, config-changed, start, and relation hooks first', () => {
    expect(hookOf(nextStep(deployed(), due()))).toEqual({ kind: 'install' });
    expect(hookOf(nextStep(running({ configVersion: 2 }), due()))).toEqual({ kind: 'config-changed', configVersion: 3 });
    expect(hookOf(nextStep(running({ started: false }), due()))).toEqual({ kind: 'start' });
    expect(hookOf(nextStep(local({}), { ...inScope({ 'mysql/0': 1 }), updateStatusDue: true }))).toEqual({
      kind: 'relation-joined',
      ...rel,
      remoteUnit: 'mysql/0',
    });
  });

  it('never runs in an error state, once Dying, or after stop', () => {
    expect(nextStep(running({ error: { kind: 'start' } }), due())).toEqual({ kind: 'wait', why: 'error' });
    expect(hookOf(nextStep(running(), due({ life: 'dying' })))).toEqual({ kind: 'stop' });
    expect(hookOf(nextStep(running({ stopped: true }), due({ life: 'dying' })))).toEqual({ kind: 'remove' });
  });
});

describe('leadership', () => {
  const free = { application: 'wordpress', claimable: true, settingsVersion: 0 };
  const heldBy = (holder: string, settingsVersion = 0) => ({ application: 'wordpress', holder, claimable: false, settingsVersion });
  const installed = () => afterHook(deployed(), { kind: 'install' });
  const withLeadership = (leadership: RemoteState['leadership'], u: Partial<Unit> = {}) => remote(u, { relations: [], leadership });

  it("Juju's order on a first install: install → leader-elected on the leader → config-changed → start", () => {
    expect(hookOf(nextStep(deployed(), withLeadership(free)))).toEqual({ kind: 'install' });
    expect(nextStep(installed(), withLeadership(free))).toEqual({ kind: 'claim-leadership' });
    const elected = nextStep(installed(), withLeadership(heldBy('wordpress/0', 2)));
    expect(hookOf(elected)).toEqual({ kind: 'leader-elected', leaderSettingsVersion: 2 });
    const leader = afterHook(installed(), hookOf(elected)!);
    expect(hookOf(nextStep(leader, withLeadership(heldBy('wordpress/0', 2))))).toEqual({ kind: 'config-changed', configVersion: 3 });
  });

  it('the others run leader-settings-changed once after install, before config-changed', () => {
    const step = nextStep(installed(), withLeadership(heldBy('wordpress/1')));
    expect(hookOf(step)).toEqual({ kind: 'leader-settings-changed', leaderSettingsVersion: 0 });
    const follower = afterHook(installed(), hookOf(step)!);
    expect(hookOf(nextStep(follower, withLeadership(heldBy('wordpress/1'))))).toEqual({ kind: 'config-changed', configVersion: 3 });
  });

  it('followers run leader-settings-changed when the leader settings change; the leader does not', () => {
    const follower = running({ leaderSettingsVersion: 1 });
    expect(nextStep(follower, withLeadership(heldBy('wordpress/1', 1)))).toEqual({ kind: 'wait', why: 'idle' });
    expect(hookOf(nextStep(follower, withLeadership(heldBy('wordpress/1', 2))))).toEqual({
      kind: 'leader-settings-changed',
      leaderSettingsVersion: 2,
    });
    const leader = running({ leader: true, leaderSettingsVersion: 1 });
    expect(nextStep(leader, withLeadership(heldBy('wordpress/0', 5)))).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('a lease another unit may no longer hold is claimed; one it holds is left alone', () => {
    expect(nextStep(running({ leaderSettingsVersion: 0 }), withLeadership({ ...heldBy('wordpress/1'), claimable: true }))).toEqual({
      kind: 'claim-leadership',
    });
    expect(nextStep(running({ leaderSettingsVersion: 0 }), withLeadership(heldBy('wordpress/1')))).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('a leader whose lease another unit now holds is leader no more', () => {
    expect(nextStep(running({ leader: true, leaderSettingsVersion: 0 }), withLeadership(heldBy('wordpress/1')))).toEqual({
      kind: 'deposed',
    });
  });

  it('a Dying leader resigns before it departs its relations; a Dying follower never claims', () => {
    const dying = { life: 'dying' as const, scopes: [KEY] };
    expect(nextStep(local({}, { leader: true }), { ...inScope({}, dying), leadership: heldBy('wordpress/0') })).toEqual({
      kind: 'resign-leadership',
    });
    const step = nextStep(local({}), { ...inScope({}, dying), leadership: free });
    expect(step.kind).not.toBe('claim-leadership');
    expect(hookOf(step)?.kind).not.toBe('leader-elected');
  });

  it('a leader renews its lease when due, before any other step, even in an error state; not before it is due', () => {
    const leader = running({ leader: true, leaderSettingsVersion: 0 });
    const held = heldBy('wordpress/0');
    expect(nextStep(leader, { ...withLeadership(held), renewLeadershipDue: true })).toEqual({ kind: 'renew-leadership' });
    expect(nextStep(leader, { ...withLeadership(held), renewLeadershipDue: false })).toEqual({ kind: 'wait', why: 'idle' });
    expect(nextStep(leader, { ...withLeadership(held), renewLeadershipDue: true, updateStatusDue: true })).toEqual({
      kind: 'renew-leadership',
    });
    const failed = running({ leader: true, leaderSettingsVersion: 0, error: { kind: 'update-status' } });
    expect(nextStep(failed, withLeadership(held))).toEqual({ kind: 'wait', why: 'error' });
    expect(nextStep(failed, { ...withLeadership(held), renewLeadershipDue: true })).toEqual({ kind: 'renew-leadership' });
    // Held before leader-elected has run (it failed, or the agent restarted): still renewed.
    expect(nextStep(installed(), { ...withLeadership(held), renewLeadershipDue: true })).toEqual({ kind: 'renew-leadership' });
  });

  it('no renewal of a lease the unit does not hold, nor by a Dying leader (it resigns)', () => {
    const leader = running({ leader: true, leaderSettingsVersion: 0 });
    expect(nextStep(leader, { ...withLeadership(heldBy('wordpress/1')), renewLeadershipDue: true })).toEqual({ kind: 'deposed' });
    expect(nextStep(running(), { ...withLeadership(free), renewLeadershipDue: true })).toEqual({ kind: 'claim-leadership' });
    const dying = { life: 'dying' as const, scopes: [KEY] };
    expect(
      nextStep(local({}, { leader: true }), { ...inScope({}, dying), leadership: heldBy('wordpress/0'), renewLeadershipDue: true }),
    ).toEqual({ kind: 'resign-leadership' });
  });

  it('an application without leadership in the view (an older controller) runs no leadership step', () => {
    expect(hookOf(nextStep(installed(), remote({}, { relations: [] })))).toEqual({ kind: 'config-changed', configVersion: 3 });
  });
});

describe('relation-created and application data', () => {
  it('relation-created runs once after entering the scope, before any -joined', () => {
    const entered = local({}, { relations: { [KEY]: { id: 7, endpoint: 'db', members: {}, created: false } } });
    const step = nextStep(entered, inScope({ 'mysql/0': 1 }));
    expect(hookOf(step)).toEqual({ kind: 'relation-created', ...rel });
    const created = afterHook(entered, hookOf(step)!);
    expect(hookOf(nextStep(created, inScope({ 'mysql/0': 1 })))).toEqual({ kind: 'relation-joined', ...rel, remoteUnit: 'mysql/0' });
  });

  it('a change of the other side’s application bag runs -changed with no remote unit, once per version', () => {
    const joined = local({ 'mysql/0': 1 });
    const changed = nextStep(joined, { ...inScope({ 'mysql/0': 1 }), appVersions: { [KEY]: 2 } });
    expect(hookOf(changed)).toEqual({ kind: 'relation-changed', ...rel, appVersion: 2 });
    const seen = afterHook(joined, hookOf(changed)!);
    expect(seen.relations[KEY]?.appVersion).toBe(2);
    expect(nextStep(seen, { ...inScope({ 'mysql/0': 1 }), appVersions: { [KEY]: 2 } })).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('units’ -joined and -changed come before the application’s -changed', () => {
    const step = nextStep(local({}), { ...inScope({ 'mysql/0': 1 }), appVersions: { [KEY]: 1 } });
    expect(hookOf(step)).toEqual({ kind: 'relation-joined', ...rel, remoteUnit: 'mysql/0' });
  });
});
