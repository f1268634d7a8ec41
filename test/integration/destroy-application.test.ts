import { beforeEach, describe, expect, it } from 'vitest';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import type { ErrorCode } from '#shared/domain/errors.js';
import { cleanupId } from '#shared/domain/plans/cleanups.js';
import { RELATIONS_PER_TRANSACTION } from '#shared/domain/plans/destroy-application.js';
import { refs } from '#shared/domain/plan.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { commit } from '#shared/state/engine/commit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyUnitByAgent } from '#shared/state/operations/destroy-unit.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getCleanup, getRelation, getUnit } from '#shared/state/engine/reads.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import type { Store } from '#shared/state/engine/store.js';
import { ensureSubordinateDying } from '#shared/state/operations/subordinate-dying.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
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

/** Expects `op` to fail with exactly `message` (and `code`), leaving every item as it was. */
const expectRefused = (op: () => Promise<unknown>, message: string, code?: ErrorCode) => expectRefusedUnchanged(store, op, message, code);

/** Setup: the unit's agent has started (it reports a status other than "allocating"). */
async function startAgent(unit: string) {
  await commit(store, [{ op: 'update', ref: refs.unit(unit), set: { agentStatus: { current: 'idle', since: new Date().toISOString() } } }]);
}

/** What the unit agent of a Dying application does: set its unit Dying, then Dead; then its machine agent removes it. */
async function unitGoesAway(unit: string) {
  await destroyUnitByAgent(store, unit);
  await ensureUnitDead(store, unit);
  return removeUnit(store, unit);
}

describe('destroy-application', () => {
  it('refuses an application that does not exist', async () => {
    await expectRefused(() => destroyApplication(store, 'mysql'), 'application "mysql" not found', 'not-found');
  });

  it('"Otherwise, remove the service immediately": no units and no relations', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    expect(await destroyApplication(store, 'mysql')).toBe('removed');
    expect(await getApplication(store, 'mysql')).toBeUndefined();
  });

  it('"If the service\'s unit count is greater than 0 ... set the service to Dying", leaving its units to a "units" cleanup', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    expect(await destroyApplication(store, 'mysql')).toBe('dying');
    const app = await getApplication(store, 'mysql');
    expect(app).toMatchObject({ life: 'dying', unitCount: 2 });
    const id = cleanupId('units', 'mysql', app!.createdAt);
    expect(await getCleanup(store, id)).toMatchObject({ id, target: 'mysql' });
    // "we can't use mgo/txn to do a bulk update of 100k units": the units are left to the cleanup.
    expect((await getUnit(store, 'mysql/0'))?.life).toBe('alive');
  });

  it('"If the service is not Alive, abort without error": destroying it again is a no-op', async () => {
    await deploy(store, { charm: charms.mysql });
    await destroyApplication(store, 'mysql');
    const before = await dumpTable(store);
    expect(await destroyApplication(store, 'mysql')).toBe('already-dying');
    expect(await dumpTable(store)).toEqual(before);
  });

  it('"When a relation is destroyed with no units in scope, it will immediately become Dead and be removed": with the service', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const { id } = await addRelation(store, ['wordpress', 'mysql']);
    expect(await destroyApplication(store, 'mysql')).toBe('removed');
    expect(await getRelation(store, WP_DB)).toBeUndefined();
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    expect(await getApplication(store, 'wordpress')).toMatchObject({ life: 'alive', relations: [] });
    // "Mark the relation's unit settings documents for future cleanup."
    expect(await getCleanup(store, cleanupId('settings', String(id)))).toMatchObject({ target: String(id) });
  });

  it('a peer relation goes with its service', async () => {
    await deploy(store, { charm: charms.riak, numUnits: 0 });
    expect(await destroyApplication(store, 'riak')).toBe('removed');
    expect(await getRelation(store, 'riak:ring')).toBeUndefined();
  });

  it('a relation with units in scope becomes Dying, and so does the service', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', WP_DB, {});
    expect(await destroyApplication(store, 'mysql')).toBe('dying');
    expect((await getRelation(store, WP_DB))?.life).toBe('dying');
    expect(await getApplication(store, 'mysql')).toMatchObject({ life: 'dying', unitCount: 0, relations: [WP_DB] });
  });

  it('"If no units of the service remain, but its relations still exist, the responsibility for removing the service falls to the last UA to leave scope"', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', WP_DB, {});
    await destroyApplication(store, 'mysql');
    await leaveScope(store, 'wordpress/0', WP_DB);
    expect(await getRelation(store, WP_DB)).toBeUndefined();
    expect(await getApplication(store, 'mysql')).toBeUndefined();
  });

  it('a container relation to a subordinate going Dying schedules the dying-subordinates cleanup, and its subordinates become Dying', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.logging });
    const { id } = await addRelation(store, ['wordpress', 'logging']);
    await enterScope(store, 'wordpress/0', WP_LOGGING, {});
    expect(await destroyApplication(store, 'wordpress')).toBe('dying');
    expect((await getRelation(store, WP_LOGGING))?.life).toBe('dying');
    expect(await getCleanup(store, cleanupId('dyingSubordinates', 'logging', String(id)))).toMatchObject({ target: 'logging' });
    expect(await ensureSubordinateDying(store, 'logging/0')).toBe('dying');
  });

  it('removes relations that do not fit one transaction in bounded batches, and the service with them', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const clients = Array.from({ length: RELATIONS_PER_TRANSACTION + 2 }, (_, i) => `blog${i}`);
    for (const name of clients) {
      await deploy(store, { charm: charms.wordpress, name, numUnits: 0 });
      await addRelation(store, [name, 'mysql']);
    }
    expect(await destroyApplication(store, 'mysql')).toBe('removed');
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    for (const name of clients) expect((await getApplication(store, name))?.relations).toEqual([]);
  });
});

describe('the end of a Dying application', () => {
  it('"the service is removed by the MA which removes the last unit of that service from state"', async () => {
    await deploy(store, { charm: charms.mysql });
    await startAgent('mysql/0');
    await destroyApplication(store, 'mysql');
    expect(await unitGoesAway('mysql/0')).toEqual({ removed: true, applicationRemoved: true });
    expect(await getApplication(store, 'mysql')).toBeUndefined();
  });

  it('"she may not create new services with the same name ... until those entities have finally been removed"', async () => {
    await deploy(store, { charm: charms.mysql });
    await startAgent('mysql/0');
    await destroyApplication(store, 'mysql');
    await expectRefused(
      () => deploy(store, { charm: charms.mysql }),
      'cannot add application "mysql": application already exists',
      'already-exists',
    );
    await unitGoesAway('mysql/0');
    const again = await deploy(store, { charm: charms.mysql });
    expect(again.units).toEqual(['mysql/1']);
    expect(await getApplication(store, 'mysql')).toMatchObject({ life: 'alive', unitCount: 1 });
  });

  it('two units removed at once, the last two of a Dying application: the application is removed exactly once and never left behind', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    await startAgent('mysql/0');
    await startAgent('mysql/1');
    await destroyApplication(store, 'mysql');
    for (const unit of ['mysql/0', 'mysql/1']) {
      await destroyUnitByAgent(store, unit);
      await ensureUnitDead(store, unit);
    }
    const results = await Promise.all([removeUnit(store, 'mysql/0'), removeUnit(store, 'mysql/1')]);
    expect(results.map((r) => r.removed)).toEqual([true, true]);
    expect(results.filter((r) => r.applicationRemoved)).toHaveLength(1);
    expect(await getApplication(store, 'mysql')).toBeUndefined();
  });

  it('six units of a Dying application removed at once: each decrements while others stay, and the last removes it, exactly once', async () => {
    const units = (await deploy(store, { charm: charms.mysql, numUnits: 6 })).units;
    for (const unit of units) await startAgent(unit);
    await destroyApplication(store, 'mysql');
    for (const unit of units) {
      await destroyUnitByAgent(store, unit);
      await ensureUnitDead(store, unit);
    }
    const results = await Promise.all(units.map((unit) => removeUnit(store, unit)));
    expect(results.map((r) => r.removed)).toEqual(units.map(() => true));
    expect(results.filter((r) => r.applicationRemoved)).toHaveLength(1);
    expect(await getApplication(store, 'mysql')).toBeUndefined();
  });
});
