// add-unit -n beyond what one call adds: the rest in the background, a bounded batch at a time
// (shared/domain/plans/background-units.ts), each unit once however often a batch runs, and the
// rest given up with the application.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Application } from '#shared/domain/entities.js';
import { IN_CALL_UNITS } from '#shared/domain/plans/background-units.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { ADD_UNITS_BATCH, addUnitsInBatches } from '#shared/state/operations/cleanup/add-units.js';
import { listCleanups, runAllCleanups, runCleanupBatch } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication } from '#shared/state/engine/reads.js';
import { listAllUnits } from '#shared/state/engine/unit-listing.js';
import type { Store } from '#shared/state/engine/store.js';
import { readStatus } from '#shared/state/queries/status.js';
import { renderTabular } from '../../cli/status/tabular.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

async function unitsOf(name: string): Promise<string[]> {
  const application = await getApplication(store, name);
  if (!application) return [];
  return (await listAllUnits(store, application)).flatMap((ref) => (ref.kind === 'unit' ? [ref.name] : []));
}
const pendingOf = async (application: string) => ((await getApplication(store, application)) as Application).pendingUnits ?? 0;

// A hundred units or more to a test: time enough on a loaded host.
describe('add-unit -n in the background', { timeout: 120_000 }, () => {
  it('adds the first units in the call and the rest in batches, each number once, with the scale in status', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    const wanted = IN_CALL_UNITS + ADD_UNITS_BATCH + 5;
    const added = await addUnits(store, 'mysql', { count: wanted, background: true });
    expect(added.units).toHaveLength(IN_CALL_UNITS);
    expect(added.remainingUnits).toBe(wanted - IN_CALL_UNITS);
    expect(await pendingOf('mysql')).toBe(wanted - IN_CALL_UNITS);

    const status = await readStatus(store);
    expect(status.applications.mysql!.scale).toBe(1 + wanted);
    expect(renderTabular(status, { relations: false, colour: false })).toMatch(new RegExp(`^mysql .* 0/${1 + wanted} `, 'm'));

    const [work] = await listCleanups(store);
    expect(work).toMatchObject({ kind: 'addUnits', target: 'mysql', remaining: wanted - IN_CALL_UNITS });
    expect(await runCleanupBatch(store, work!.id)).toBe('more');
    expect(await unitsOf('mysql')).toHaveLength(1 + IN_CALL_UNITS + ADD_UNITS_BATCH);

    await runAllCleanups(store);
    const units = await unitsOf('mysql');
    expect(units).toHaveLength(1 + wanted);
    expect(new Set(units).size).toBe(units.length);
    expect(await pendingOf('mysql')).toBe(0);
    expect((await readStatus(store)).applications.mysql).not.toHaveProperty('scale');
    expect(await listCleanups(store)).toEqual([]);
  });

  it('adds each unit once when the same batch runs three times at once', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addUnits(store, 'mysql', { count: IN_CALL_UNITS + ADD_UNITS_BATCH + 3, background: true });
    const [work] = await listCleanups(store);
    await Promise.all([runCleanupBatch(store, work!.id), runCleanupBatch(store, work!.id), runCleanupBatch(store, work!.id)]);
    await Promise.all([runAllCleanups(store), runAllCleanups(store), runAllCleanups(store)]);
    expect(await unitsOf('mysql')).toHaveLength(IN_CALL_UNITS + ADD_UNITS_BATCH + 3);
    expect(await pendingOf('mysql')).toBe(0);
  });

  it('leaves the document to a runner that counted units off since this one read it', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addUnits(store, 'mysql', { count: IN_CALL_UNITS + ADD_UNITS_BATCH + 3, background: true });
    const [asReadEarlier] = await listCleanups(store);
    expect(await runCleanupBatch(store, asReadEarlier!.id)).toBe('more'); // the other runner's batch

    // Racing the other chunk for chunk, it would lose every race and give up as "state changing too quickly".
    expect(await addUnitsInBatches(store, asReadEarlier!)).toEqual({ cursor: '3' });
    expect(await unitsOf('mysql')).toHaveLength(IN_CALL_UNITS + ADD_UNITS_BATCH);
    expect(await listCleanups(store)).toContainEqual(expect.objectContaining({ id: asReadEarlier!.id, remaining: 3 }));
  });

  it('gives up the rest when the application is destroyed', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addUnits(store, 'mysql', { count: IN_CALL_UNITS + 10, background: true });
    await destroyApplication(store, 'mysql');
    await runAllCleanups(store); // the units' removal and the rest given up alike
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    expect(await unitsOf('mysql')).toEqual([]);
    expect(await listCleanups(store)).toEqual([]);
  });

  it('leaves alone an application deployed again under the name before the batch ran', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addUnits(store, 'mysql', { count: IN_CALL_UNITS + 10, background: true });
    await destroyApplication(store, 'mysql');
    // Only the units' removal: the never-started units go at once, and the application with them.
    for (let more = true; more;) {
      const removals = (await listCleanups(store)).filter((c) => c.kind !== 'addUnits');
      for (const c of removals) await runCleanupBatch(store, c.id);
      more = removals.length > 0;
    }
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    await deploy(store, { charm: charms.mysql, numUnits: 1 });

    await runAllCleanups(store);
    expect(await listCleanups(store)).toEqual([]);
    expect(await unitsOf('mysql')).toHaveLength(1);
    expect(await getApplication(store, 'mysql')).not.toHaveProperty('pendingUnits');
  });

  it('is refused, adding nothing, for an application that is not Alive', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await addUnits(store, 'mysql', { count: 1 });
    await destroyApplication(store, 'mysql');
    await expect(addUnits(store, 'mysql', { count: IN_CALL_UNITS + 1, background: true })).rejects.toThrow(/not alive/);
    expect(await listCleanups(store)).not.toContainEqual(expect.objectContaining({ kind: 'addUnits' }));
  });

  it('adds every unit in the call unless asked to leave some to the background', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const added = await addUnits(store, 'mysql', { count: IN_CALL_UNITS + 3 });
    expect(added).toMatchObject({ remainingUnits: 0 });
    expect(added.units).toHaveLength(IN_CALL_UNITS + 3);
    expect(await listCleanups(store)).toEqual([]);
  });
});
