import type { ErrorCode } from '#shared/domain/errors.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import { cleanupId } from '#shared/domain/plans/cleanups.js';
import { refs } from '#shared/domain/plan.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { commit } from '#shared/state/engine/commit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getCleanup, getItem, getRelation, getUnit } from '#shared/state/engine/reads.js';
import { writeSettings } from '#shared/state/operations/relation-settings.js';
import { readSettings } from '#shared/state/queries/relation-settings.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

const WP_DB = 'wordpress:db mysql:server';
const WP_LOGGING = 'logging:logging-directory wordpress:logging-dir';
const ADDRESS = { 'private-address': '10.0.0.1' };

/** Expects `op` to fail with exactly `message` (and `code`), leaving every item as it was. */
const expectRefused = (op: () => Promise<unknown>, message: string, code?: ErrorCode) => expectRefusedUnchanged(store, op, message, code);

/**
 * The destroy operations for units and applications are not in this test's reach, so these set
 * life directly, exactly as those operations would (Alive → Dying), to build the situation.
 */
async function setDying(ref: ReturnType<typeof refs.unit>) {
  await commit(store, [{ op: 'update', ref, set: { life: 'dying' }, expect: { life: 'alive' } }]);
}

const inScope = async (key: string, unit: string) => {
  const relation = await getRelation(store, key);
  return relation !== undefined && (await getItem(store, refs.scope(relation, unit))) !== undefined;
};

describe('enter scope', () => {
  beforeEach(async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await addRelation(store, ['wordpress', 'mysql']);
  });

  it('"While a relation is Alive, units of services in that relation can enter its scope", writing their initial settings', async () => {
    const relation = await getRelation(store, WP_DB);
    expect(await enterScope(store, 'wordpress/0', WP_DB, ADDRESS)).toEqual({});
    expect(await inScope(WP_DB, 'wordpress/0')).toBe(true);
    expect((await getRelation(store, WP_DB))?.unitCount).toBe(1);
    expect((await getUnit(store, 'wordpress/0'))?.scopes).toEqual([WP_DB]);
    expect(await readSettings(store, relation!.id, 'wordpress/0')).toEqual({ settings: ADDRESS, version: 1 });
  });

  it('entering again changes nothing', async () => {
    await enterScope(store, 'wordpress/0', WP_DB, ADDRESS);
    const before = await dumpTable(store);
    await enterScope(store, 'wordpress/0', WP_DB, { 'private-address': '10.9.9.9' });
    expect(await dumpTable(store)).toEqual(before);
  });

  it('counts every unit in scope', async () => {
    await Promise.all([
      enterScope(store, 'wordpress/0', WP_DB, ADDRESS),
      enterScope(store, 'wordpress/1', WP_DB, ADDRESS),
      enterScope(store, 'mysql/0', WP_DB, ADDRESS),
    ]);
    expect((await getRelation(store, WP_DB))?.unitCount).toBe(3);
  });

  it('a unit that is not Alive cannot enter', async () => {
    await setDying(refs.unit('wordpress/0'));
    await expectRefused(
      () => enterScope(store, 'wordpress/0', WP_DB, ADDRESS),
      'cannot enter scope: unit or relation is not alive',
      'not-alive',
    );
  });

  it('no unit can enter a relation that is not Alive', async () => {
    await enterScope(store, 'mysql/0', WP_DB, ADDRESS);
    await destroyRelation(store, ['wordpress', 'mysql']);
    await expectRefused(
      () => enterScope(store, 'wordpress/0', WP_DB, ADDRESS),
      'cannot enter scope: unit or relation is not alive',
      'not-alive',
    );
  });

  it("only units of the relation's applications can enter", async () => {
    await deploy(store, { charm: charms.varnish });
    await expectRefused(
      () => enterScope(store, 'varnish/0', WP_DB, ADDRESS),
      `application "varnish" is not a member of "${WP_DB}"`,
      'invalid-argument',
    );
  });
});

describe('enter scope: subordinates', () => {
  beforeEach(async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.logging });
    await addRelation(store, ['wordpress', 'logging']);
  });

  it('"While a principal unit is Alive, it can enter the scopes of Alive relations, which may cause the creation of subordinate units": exactly one, on its machine', async () => {
    const principal = await getUnit(store, 'wordpress/0');
    expect(await enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS)).toEqual({ subordinate: 'logging/0' });
    expect(await getUnit(store, 'logging/0')).toMatchObject({
      life: 'alive',
      principal: 'wordpress/0',
      machine: principal?.machine,
      series: 'jammy',
      constraints: {},
      agentStatus: { current: 'allocating' },
    });
    expect((await getUnit(store, 'wordpress/0'))?.subordinates).toEqual(['logging/0']);
    expect((await getApplication(store, 'logging'))?.unitCount).toBe(1);
  });

  it('re-entering creates no more subordinates', async () => {
    await enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS);
    const before = await dumpTable(store);
    expect(await enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS)).toEqual({});
    expect(await dumpTable(store)).toEqual(before);
  });

  it('a principal entering a second container relation with the same subordinate application reuses its subordinate', async () => {
    await enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS);
    const { key } = await addRelation(store, ['wordpress:juju-info', 'logging:info']);
    expect(await enterScope(store, 'wordpress/0', key, ADDRESS)).toEqual({});
    expect((await getUnit(store, 'wordpress/0'))?.subordinates).toEqual(['logging/0']);
    expect((await getApplication(store, 'logging'))?.unitCount).toBe(1);
  });

  it('a subordinate entering just enters', async () => {
    await enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS);
    expect(await enterScope(store, 'logging/0', WP_LOGGING, ADDRESS)).toEqual({});
    expect((await getRelation(store, WP_LOGGING))?.unitCount).toBe(2);
    expect((await getApplication(store, 'logging'))?.unitCount).toBe(1);
  });

  it('concurrent entries of one principal create one subordinate', async () => {
    const { key } = await addRelation(store, ['wordpress:juju-info', 'logging:info']);
    await Promise.all([enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS), enterScope(store, 'wordpress/0', key, ADDRESS)]);
    // Each entry reserves a number before it commits (as Juju's sequence does), so the one that
    // wins may hold logging/0 or logging/1: what matters is that there is one.
    const subordinates = (await getUnit(store, 'wordpress/0'))?.subordinates;
    expect(subordinates).toHaveLength(1);
    expect(subordinates![0]).toMatch(/^logging\/[01]$/);
    expect(await getUnit(store, subordinates![0]!)).toMatchObject({ principal: 'wordpress/0' });
    expect((await getApplication(store, 'logging'))?.unitCount).toBe(1);
  });

  it('a principal whose subordinate is not Alive cannot enter again: "cannot enter scope yet"', async () => {
    await enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS);
    await leaveScope(store, 'wordpress/0', WP_LOGGING);
    await setDying(refs.unit('logging/0'));
    await expectRefused(
      () => enterScope(store, 'wordpress/0', WP_LOGGING, ADDRESS),
      'cannot enter scope yet: non-alive subordinate unit has not been removed',
      'not-alive',
    );
  });

  it('"Both the required relation and the principal side of the relation must be deployed before a subordinate is deployed"', async () => {
    await deploy(store, { charm: charms['metrics-agent'] });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const { key } = await addRelation(store, ['wordpress', 'metrics-agent']);
    expect(await enterScope(store, 'wordpress/0', key, ADDRESS)).toEqual({});
    expect((await getApplication(store, 'metrics-agent'))?.unitCount).toBe(0);

    const { id } = await addRelation(store, ['metrics-agent', 'mysql']);
    expect(await getCleanup(store, cleanupId('assignUnits', 'metrics-agent', String(id)))).toBeDefined();
    // Entering again (as the cleanup does for principals in scope) now creates the subordinate.
    expect(await enterScope(store, 'wordpress/0', key, ADDRESS)).toEqual({ subordinate: 'metrics-agent/0' });
    expect((await getUnit(store, 'wordpress/0'))?.subordinates).toEqual(['metrics-agent/0']);
  });
});

describe('leave scope', () => {
  let relationId: number;
  beforeEach(async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    relationId = (await addRelation(store, ['wordpress', 'mysql'])).id;
    await enterScope(store, 'wordpress/0', WP_DB, ADDRESS);
    await enterScope(store, 'wordpress/1', WP_DB, ADDRESS);
  });

  it('leaves the scope of an Alive relation, which stays', async () => {
    expect(await leaveScope(store, 'wordpress/0', WP_DB)).toEqual({ removedRelation: false });
    expect(await inScope(WP_DB, 'wordpress/0')).toBe(false);
    expect(await getRelation(store, WP_DB)).toMatchObject({ life: 'alive', unitCount: 1 });
    expect((await getUnit(store, 'wordpress/0'))?.scopes).toEqual([]);
  });

  it('leaving again changes nothing', async () => {
    await leaveScope(store, 'wordpress/0', WP_DB);
    const before = await dumpTable(store);
    expect(await leaveScope(store, 'wordpress/0', WP_DB)).toEqual({ removedRelation: false });
    expect(await dumpTable(store)).toEqual(before);
  });

  it('a Dying relation stays while units remain in its scope', async () => {
    await destroyRelation(store, ['wordpress', 'mysql']);
    await leaveScope(store, 'wordpress/0', WP_DB);
    expect(await getRelation(store, WP_DB)).toMatchObject({ life: 'dying', unitCount: 1 });
  });

  it('"When the last unit leaves the scope of a Dying relation, it must remove the relation from state"', async () => {
    await destroyRelation(store, ['wordpress', 'mysql']);
    await leaveScope(store, 'wordpress/0', WP_DB);
    expect(await leaveScope(store, 'wordpress/1', WP_DB)).toEqual({ removedRelation: true });
    expect(await getRelation(store, WP_DB)).toBeUndefined();
    expect((await getApplication(store, 'wordpress'))?.relations).toEqual([]);
    expect((await getApplication(store, 'mysql'))?.relations).toEqual([]);
    expect(await getCleanup(store, cleanupId('settings', String(relationId)))).toBeDefined();
  });

  it('two units leaving a Dying relation together: the relation is removed exactly once', async () => {
    await destroyRelation(store, ['wordpress', 'mysql']);
    const results = await Promise.all([leaveScope(store, 'wordpress/0', WP_DB), leaveScope(store, 'wordpress/1', WP_DB)]);
    expect(results.filter((r) => r.removedRelation)).toHaveLength(1);
    expect(await getRelation(store, WP_DB)).toBeUndefined();
  });

  it('"relation removal may also imply service removal": the last leaver removes a Dying counterpart with no units', async () => {
    await destroyRelation(store, ['wordpress', 'mysql']);
    // mysql is destroyed while the Dying relation still holds it (destroy-service skips Dying
    // relations): it goes Dying with no units, held only by this relation.
    await setDying(refs.application('mysql'));
    await leaveScope(store, 'wordpress/0', WP_DB);
    expect(await getApplication(store, 'mysql')).toMatchObject({ life: 'dying', relations: [WP_DB] });
    await leaveScope(store, 'wordpress/1', WP_DB);
    expect(await getRelation(store, WP_DB)).toBeUndefined();
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    expect(await getApplication(store, 'wordpress')).toMatchObject({ life: 'alive', relations: [] });
  });
});

describe('relation settings', () => {
  let id: number;
  beforeEach(async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    id = (await addRelation(store, ['wordpress', 'mysql'])).id;
    await enterScope(store, 'wordpress/0', WP_DB, ADDRESS);
  });

  it('are versioned: each change bumps the version', async () => {
    expect(await writeSettings(store, id, 'wordpress/0', { database: 'wp' })).toEqual({
      settings: { ...ADDRESS, database: 'wp' },
      version: 2,
    });
    expect(await writeSettings(store, id, 'wordpress/0', { database: '' })).toEqual({ settings: ADDRESS, version: 3 });
    expect(await readSettings(store, id, 'wordpress/0')).toEqual({ settings: ADDRESS, version: 3 });
  });

  it('"a null setting change can be safely ignored, and will not cause other units to react": it writes nothing', async () => {
    const before = await dumpTable(store);
    expect(await writeSettings(store, id, 'wordpress/0', { ...ADDRESS, absent: '' })).toEqual({ settings: ADDRESS, version: 1 });
    expect(await dumpTable(store)).toEqual(before);
  });

  it('concurrent writes are both kept', async () => {
    await Promise.all([writeSettings(store, id, 'wordpress/0', { a: '1' }), writeSettings(store, id, 'wordpress/0', { b: '2' })]);
    expect(await readSettings(store, id, 'wordpress/0')).toEqual({ settings: { ...ADDRESS, a: '1', b: '2' }, version: 3 });
  });

  it('survive the unit leaving scope', async () => {
    await leaveScope(store, 'wordpress/0', WP_DB);
    expect(await readSettings(store, id, 'wordpress/0')).toEqual({ settings: ADDRESS, version: 1 });
  });

  it("survive the relation's removal until the settings cleanup", async () => {
    await destroyRelation(store, id);
    await leaveScope(store, 'wordpress/0', WP_DB);
    expect(await getRelation(store, WP_DB)).toBeUndefined();
    expect(await readSettings(store, id, 'wordpress/0')).toEqual({ settings: ADDRESS, version: 1 });
  });

  it('a unit that never entered has none', async () => {
    await deploy(store, { charm: charms.riak, numUnits: 1 });
    const ring = await getRelation(store, 'riak:ring');
    await expectRefused(
      () => readSettings(store, ring!.id, 'riak/0'),
      'cannot read settings for unit "riak/0" in relation "riak:ring": unit "riak/0": settings not found',
      'not-found',
    );
    await expectRefused(
      () => writeSettings(store, ring!.id, 'riak/0', { a: '1' }),
      'cannot write settings for unit "riak/0" in relation "riak:ring": unit "riak/0": settings not found',
      'not-found',
    );
  });
});
