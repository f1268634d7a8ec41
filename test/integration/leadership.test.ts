// Leadership leases in DynamoDB Local: one holder per application, claimed and extended by
// conditional writes, handed over only once the lease has run out (its holder did not renew it),
// released by the holder; leader settings written only by the holder (commit-hook).
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_SECONDS } from '#shared/domain/leadership.js';
import { commitHookChanges } from '#shared/state/operations/commit-hook.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { readApplicationStatus } from '#shared/state/queries/application-status.js';
import { setApplicationStatus } from '#shared/state/operations/application-status.js';
import { readStatus } from '#shared/state/queries/status.js';
import { getAppSettings, readAppSettings } from '#shared/state/queries/app-settings.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyUnit, destroyUnitByAgent } from '#shared/state/operations/destroy-unit.js';
import { getApplication, getRelation } from '#shared/state/engine/reads.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { claimLeadership, releaseAbandonedLeases, releaseLeadership } from '#shared/state/operations/leadership.js';
import { getLeaderSettings, getLease, readLeadership } from '#shared/state/queries/leadership.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { recordPresence } from '#shared/state/operations/presence.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

const LEASE_MS = DEFAULT_LEASE_SECONDS * 1000;
let clock: number;
let store: Store;

beforeEach(async () => {
  clock = Date.parse('2026-01-01T00:00:00Z');
  store = await freshStore({ now: () => new Date(clock) });
  await ensureModel(store);
  await deploy(store, { charm: charms.mysql, numUnits: 3 });
  // Units are on machines 0..2; their agents are present.
  for (const m of ['0', '1', '2']) await recordPresence(store, m, 0);
});

describe('claim-leadership', () => {
  it('gives a free lease to the first claimant and refuses the others while it holds it', async () => {
    const results = await Promise.all(['mysql/0', 'mysql/1', 'mysql/2'].map((u) => claimLeadership(store, u, LEASE_MS)));
    const leaders = results.filter((r) => r.leader);
    expect(leaders).toHaveLength(1);
    const holder = leaders[0]!.holder!;
    for (const r of results) expect(r.holder).toBe(holder);
    expect((await getLease(store, 'mysql'))?.holder).toBe(holder);
  });

  it('extends the holder’s lease by the controller’s lease length, from its clock, and tells the holder that length', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    clock += 40_000;
    const extended = await claimLeadership(store, 'mysql/0', LEASE_MS);
    expect(extended).toEqual({
      leader: true,
      holder: 'mysql/0',
      expiresAt: new Date(clock + LEASE_MS).toISOString(),
      durationMs: LEASE_MS,
    });
    expect(DEFAULT_LEASE_SECONDS).toBe(330);
  });

  it('never hands over a lease that has not run out, even a millisecond before, whatever its holder', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    clock += LEASE_MS - 1;
    expect(await claimLeadership(store, 'mysql/1', LEASE_MS)).toMatchObject({ leader: false, holder: 'mysql/0' });
    expect((await readLeadership(store, ['mysql']))[0]).toMatchObject({ holder: 'mysql/0', claimable: false });
    // A Dying holder's unexpired lease is not taken either: it releases it on its way out.
    await destroyUnit(store, 'mysql/0');
    expect(await claimLeadership(store, 'mysql/1', LEASE_MS)).toMatchObject({ leader: false, holder: 'mysql/0' });
    // A Dying unit may not extend it.
    expect(await claimLeadership(store, 'mysql/0', LEASE_MS)).toMatchObject({ leader: false });
  });

  it('hands a run-out lease to another claimant even though its holder is alive and present (it did not renew)', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    clock += LEASE_MS;
    await recordPresence(store, '0', 0);
    expect((await readLeadership(store, ['mysql']))[0]).toMatchObject({ holder: 'mysql/0', claimable: true });
    expect(await claimLeadership(store, 'mysql/1', LEASE_MS)).toMatchObject({ leader: true, holder: 'mysql/1' });
    // The old holder, late, is refused: the lease is mysql/1's now.
    expect(await claimLeadership(store, 'mysql/0', LEASE_MS)).toMatchObject({ leader: false, holder: 'mysql/1' });
  });

  it('a leader that renews in time keeps its lease across many lease lengths', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    for (let i = 0; i < 5; i++) {
      clock += LEASE_MS - 45_000;
      expect(await claimLeadership(store, 'mysql/1', LEASE_MS)).toMatchObject({ leader: false, holder: 'mysql/0' });
      expect(await claimLeadership(store, 'mysql/0', LEASE_MS)).toMatchObject({ leader: true });
    }
  });

  it('never gives the lease to a Dying unit', async () => {
    await destroyUnit(store, 'mysql/2');
    expect(await claimLeadership(store, 'mysql/2', LEASE_MS)).toEqual({ leader: false });
    expect(await getLease(store, 'mysql')).toBeUndefined();
  });
});

describe('release-leadership', () => {
  it('frees the lease at once when its holder releases it, and does nothing for another unit', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    expect(await releaseLeadership(store, 'mysql/1', 'mysql')).toEqual({ released: false });
    expect((await getLease(store, 'mysql'))?.holder).toBe('mysql/0');
    expect(await releaseLeadership(store, 'mysql/0', 'mysql')).toEqual({ released: true });
    expect((await readLeadership(store, ['mysql']))[0]).toEqual({ application: 'mysql', claimable: true, settingsVersion: 0 });
    expect(await claimLeadership(store, 'mysql/1', LEASE_MS)).toMatchObject({ leader: true });
  });
});

describe('leader settings', () => {
  it('are written by the leader with its hook, versioned, and refused to the others in Juju’s words', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    const hook = (changes: Record<string, string>) => ({ settings: [], ports: [], leaderSettings: { application: 'mysql', changes } });
    await commitHookChanges(store, 'mysql/0', hook({ password: 's3cret', user: 'root' }));
    expect(await getLeaderSettings(store, 'mysql')).toMatchObject({ settings: { password: 's3cret', user: 'root' }, version: 1 });
    await commitHookChanges(store, 'mysql/0', hook({ user: '' }));
    expect(await getLeaderSettings(store, 'mysql')).toMatchObject({ settings: { password: 's3cret' }, version: 2 });
    await expect(commitHookChanges(store, 'mysql/1', hook({ password: 'mine' }))).rejects.toThrow('cannot write settings: not the leader');
    expect(await getLeaderSettings(store, 'mysql')).toMatchObject({ settings: { password: 's3cret' }, version: 2 });
    expect((await readLeadership(store, ['mysql']))[0]).toMatchObject({ settingsVersion: 2 });
  });
});

describe('application removal', () => {
  it('takes the application’s lease and leader settings with it, so a new one of that name starts without a leader', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await recordPresence(store, '3', 0);
    await claimLeadership(store, 'wordpress/0', LEASE_MS);
    await commitHookChanges(store, 'wordpress/0', {
      settings: [],
      ports: [],
      leaderSettings: { application: 'wordpress', changes: { a: 'b' } },
    });
    await destroyApplication(store, 'wordpress');
    // What its unit agent does: Dying, Dead, removed — and the application with its last unit.
    await destroyUnitByAgent(store, 'wordpress/0');
    await ensureUnitDead(store, 'wordpress/0');
    await removeUnit(store, 'wordpress/0');
    expect(await getApplication(store, 'wordpress')).toBeUndefined();
    expect(await getLease(store, 'wordpress')).toBeUndefined();
    expect(await getLeaderSettings(store, 'wordpress')).toBeUndefined();
    // Other applications' leadership is untouched.
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    expect((await getLease(store, 'mysql'))?.holder).toBe('mysql/0');
  });
});

describe('application data bags', () => {
  const hook = (relationId: number, changes: Record<string, string>) => ({
    settings: [],
    ports: [],
    appSettings: { application: 'mysql', relations: [{ relationId, changes }] },
  });

  it('are written by the leader alone, read by the other side, by the leader of their own, and go with the relation', async () => {
    await deploy(store, { charm: charms.wordpress });
    const { id, key } = await addRelation(store, ['wordpress', 'mysql']);
    const relation = (await getRelation(store, key))!;
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    await expect(commitHookChanges(store, 'mysql/1', hook(id, { host: 'db' }))).rejects.toThrow(/^cannot write relation settings$/);
    await commitHookChanges(store, 'mysql/0', hook(id, { host: 'db' }));
    expect(await readAppSettings(store, { unit: 'wordpress/0', application: 'wordpress' }, relation, 'mysql')).toEqual({
      settings: { host: 'db' },
      version: 1,
    });
    expect(await readAppSettings(store, { unit: 'mysql/0', application: 'mysql' }, relation, 'mysql')).toMatchObject({
      settings: { host: 'db' },
    });
    await expect(readAppSettings(store, { unit: 'mysql/1', application: 'mysql' }, relation, 'mysql')).rejects.toThrow(
      /^permission denied$/,
    );
    await destroyRelation(store, id);
    expect(await getRelation(store, key)).toBeUndefined();
    await runAllCleanups(store);
    expect(await getAppSettings(store, id, 'mysql')).toBeUndefined();
  });
});

describe('the sweep of run-out leases', () => {
  it('frees a run-out lease (its leader did not renew it) and leaves one that has not run out alone', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    clock += 60_000;
    await claimLeadership(store, 'wordpress/0', LEASE_MS);
    expect(await releaseAbandonedLeases(store)).toEqual([]);
    // mysql/0 did not renew: its lease has run out; wordpress/0's has a minute left.
    clock += LEASE_MS - 60_000;
    expect(await releaseAbandonedLeases(store)).toEqual(['mysql']);
    expect(await getLease(store, 'mysql')).toBeUndefined();
    expect((await getLease(store, 'wordpress'))?.holder).toBe('wordpress/0');
    // Done already: a second sweep changes nothing.
    expect(await releaseAbandonedLeases(store)).toEqual([]);
  });

  it('frees a Dying leader’s lease once it has run out, not before', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    await destroyUnit(store, 'mysql/0');
    expect(await releaseAbandonedLeases(store)).toEqual([]);
    clock += LEASE_MS;
    expect(await releaseAbandonedLeases(store)).toEqual(['mysql']);
  });
});

describe('application status', () => {
  it('only the leader sets it; status shows it in place of the derived one; status-get --application reads it with the units', async () => {
    await claimLeadership(store, 'mysql/0', LEASE_MS);
    await expect(setApplicationStatus(store, 'mysql/1', { current: 'blocked', message: 'no' })).rejects.toThrow(
      /^this unit is not the leader$/,
    );
    await setApplicationStatus(store, 'mysql/0', { current: 'active', message: 'cluster of 3' });
    const doc = (await readStatus(store)) as unknown as {
      applications: Record<string, { 'application-status': { current: string; message?: string } }>;
    };
    expect(doc.applications.mysql?.['application-status']).toMatchObject({ current: 'active', message: 'cluster of 3' });
    const answer = await readApplicationStatus(store, 'mysql/0');
    expect(answer.application).toEqual({ status: 'active', message: 'cluster of 3', data: {} });
    expect(answer.units.map((u) => u.unit)).toEqual(['mysql/0', 'mysql/1', 'mysql/2']);
    await expect(readApplicationStatus(store, 'mysql/2')).rejects.toThrow(/^this unit is not the leader$/);
  });
});
