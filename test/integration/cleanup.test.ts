import { beforeEach, describe, expect, it } from 'vitest';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { listCleanups, runAllCleanups, runCleanupBatch } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { forceDestroyApplication, forceDestroyMachine, forceDestroyUnit } from '#shared/state/operations/force.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getMachine, getRelation, getSettings, getUnit } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

const started = (unit: string) => setUnitStatus(store, unit, { agent: { current: 'idle' } });

describe('units of a Dying application', () => {
  it('"the UAs for each unit of a service set their corresponding units to Dying" — done here in bounded batches', async () => {
    const { units } = await deploy(store, { charm: charms.mysql, numUnits: 30 });
    for (const u of units) await started(u);
    expect(await destroyApplication(store, 'mysql')).toBe('dying');
    const [cleanup] = await listCleanups(store);
    expect(cleanup).toMatchObject({ kind: 'units', target: 'mysql' });
    expect(await runCleanupBatch(store, cleanup!.id)).toBe('more'); // 30 units: more than one batch
    await runAllCleanups(store);
    for (const u of units) expect((await getUnit(store, u))?.life).toBe('dying');
    expect(await listCleanups(store)).toEqual([]);
  });

  it('units whose agents never started are removed, and the application with the last of them', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 3 });
    await destroyApplication(store, 'mysql');
    await runAllCleanups(store);
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    expect(await getMachine(store, '0')).toMatchObject({ principals: [] });
  });

  it('a batch run twice (at-least-once delivery) has the same outcome as once', async () => {
    const { units } = await deploy(store, { charm: charms.mysql, numUnits: 2 });
    for (const u of units) await started(u);
    await destroyApplication(store, 'mysql');
    const [cleanup] = await listCleanups(store);
    await Promise.all([runCleanupBatch(store, cleanup!.id), runCleanupBatch(store, cleanup!.id)]);
    for (const u of units) expect((await getUnit(store, u))?.life).toBe('dying');
    expect(await listCleanups(store)).toEqual([]);
  });
});

describe('relation settings', () => {
  it('"Mark the relation\'s unit settings documents for future cleanup": they outlive the relation until the cleanup runs', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.mysql });
    const { id, key } = await addRelation(store, ['wordpress', 'mysql']);
    await started('wordpress/0');
    await enterScope(store, 'wordpress/0', key, { 'private-address': '10.0.0.1' });
    await destroyRelation(store, id);
    expect((await getRelation(store, key))?.life).toBe('dying');
    await leaveScope(store, 'wordpress/0', key);
    expect(await getRelation(store, key)).toBeUndefined();
    expect(await getSettings(store, id, 'wordpress/0')).toBeDefined();
    await runAllCleanups(store);
    expect(await getSettings(store, id, 'wordpress/0')).toBeUndefined();
  });
});

describe('required relations', () => {
  it('"it will not be deployed until such time as those relationships have been satisfied": units wait without machines, then get them without another user action', async () => {
    const deployed = await deploy(store, { charm: charms.blog, numUnits: 2 });
    expect(deployed.machines).toEqual([]);
    expect(deployed.pending).toBe('application "blog" will be deployed when its required relations are added: db (mysql)');
    expect(await getUnit(store, 'blog/0')).toMatchObject({ workloadStatus: { message: 'waiting for required relations: db' } });
    expect((await getUnit(store, 'blog/0'))?.machine).toBeUndefined();

    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const related = await addRelation(store, ['blog', 'mysql']);
    expect(related.pending).toEqual([]);
    await runAllCleanups(store);
    const [a, b] = [await getUnit(store, 'blog/0'), await getUnit(store, 'blog/1')];
    expect(a?.machine).toBeDefined();
    expect(b?.machine).toBeDefined();
    expect(await getMachine(store, a!.machine!)).toMatchObject({ principals: ['blog/0'], series: 'jammy' });
  });

  it('add-unit on a waiting application adds waiting units', async () => {
    await deploy(store, { charm: charms.blog, numUnits: 0 });
    const added = await addUnits(store, 'blog', { count: 2 });
    expect(added.machines).toEqual([]);
  });
});

describe('subordinates of a relation that is no longer Alive', () => {
  it('"the last Alive relation between its service and its principal\'s service is no longer Alive" → the subordinate becomes Dying', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.logging });
    const { key } = await addRelation(store, ['wordpress', 'logging']);
    await started('wordpress/0');
    const { subordinate } = await enterScope(store, 'wordpress/0', key, {});
    await started(subordinate!);
    await enterScope(store, subordinate!, key, {});
    await destroyRelation(store, ['wordpress', 'logging']);
    await runAllCleanups(store);
    expect((await getUnit(store, subordinate!))?.life).toBe('dying');
  });
});

describe('--force', () => {
  it('remove-unit --force removes a started unit in scope with a subordinate, keeping every count consistent', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.logging });
    await deploy(store, { charm: charms.mysql });
    const db = await addRelation(store, ['wordpress', 'mysql']);
    const logging = await addRelation(store, ['wordpress', 'logging']);
    await started('wordpress/0');
    await enterScope(store, 'wordpress/0', db.key, {});
    await enterScope(store, 'wordpress/0', logging.key, {});
    await forceDestroyUnit(store, 'wordpress/0');
    await runAllCleanups(store);
    expect(await getUnit(store, 'wordpress/0')).toBeUndefined();
    expect(await getUnit(store, 'logging/0')).toBeUndefined();
    expect(await getApplication(store, 'wordpress')).toMatchObject({ unitCount: 0, life: 'alive' });
    expect(await getApplication(store, 'logging')).toMatchObject({ unitCount: 0 });
    expect(await getRelation(store, db.key)).toMatchObject({ unitCount: 0, life: 'alive' });
    expect(await getMachine(store, '0')).toMatchObject({ principals: [] });
  });

  it('remove-machine --force removes the machine with its units, which plain remove-machine refuses', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await started('mysql/0');
    await forceDestroyMachine(store, '0');
    await forceDestroyMachine(store, '0'); // forcing twice is harmless
    await runAllCleanups(store);
    expect(await getUnit(store, 'mysql/0')).toBeUndefined();
    expect(await getMachine(store, '0')).toBeUndefined();
  });

  it('remove-application --force removes the application and all its units', async () => {
    const { units } = await deploy(store, { charm: charms.mysql, numUnits: 12 });
    for (const u of units) await started(u);
    await forceDestroyApplication(store, 'mysql');
    await runAllCleanups(store);
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    for (const u of units) expect(await getUnit(store, u)).toBeUndefined();
  });
});
