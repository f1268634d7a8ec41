// destroy-model end to end on DynamoDB Local: the model's cleanup (run by the cleanup runner the
// changes function and the sweep use) destroys a second model's applications and machines while
// its agents play their part (test/support/model-agents.ts), then removes the model and its name;
// the model beside it is untouched.
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanupStep } from '../../functions/changes/cleanups.js';
import { streamBatchHandler } from '../../functions/stream-batch.js';
import { isDroverError } from '#shared/domain/errors.js';
import { refs } from '#shared/domain/plan.js';
import { modelCleanupId } from '#shared/domain/plans/destroy-model.js';
import { getCleanup, getModel, getUnit } from '#shared/state/engine/reads.js';
import { SnapshotCache } from '#shared/state/engine/snapshot-cache.js';
import type { Store } from '#shared/state/engine/store.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { destroyModelContents, MODEL_ROUND_WAIT_MS } from '#shared/state/operations/cleanup/model.js';
import { runAllCleanups, runCleanupBatch } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { getModelName, storeOfModel } from '#shared/state/queries/models.js';
import { readStatus } from '#shared/state/queries/status.js';
import { listStuck } from '#shared/state/queries/stuck.js';
import { charms } from '../support/charms.js';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import { agentsTurn } from '../support/model-agents.js';
import { readModelState } from '../support/model-state.js';
import { readItem, streamEvent, streamRecord } from '../support/stream.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

/** The tests' clock: the model's cleanup waits between rounds, and the tests move time on instead. */
let clock: number;
let store: Store;
beforeEach(async () => {
  clock = Date.parse('2026-01-01T00:00:00Z');
  store = await freshStore({ now: () => new Date(clock) });
  await ensureModel(store);
});

const WP_DB = 'wordpress:db mysql:server';
const WP_LOGGING = 'logging:logging-directory wordpress:logging-dir';

/** Agents report in: their units are no longer "allocating", so none is short-cut away. */
async function startAgents(model: Store, units: string[]) {
  for (const unit of units) await setUnitStatus(model, unit, { agent: { current: 'idle' } });
}

/** A second model with two related applications, a subordinate on one and an empty machine. */
async function stagingModel(): Promise<Store> {
  await addModel(store, { name: 'staging' });
  const staging = await storeOfModel(store, 'staging');
  const wordpress = await deploy(staging, { charm: charms.wordpress });
  const mysql = await deploy(staging, { charm: charms.mysql });
  await deploy(staging, { charm: charms.logging });
  await startAgents(staging, [...wordpress.units, ...mysql.units]);
  await addRelation(staging, ['wordpress', 'mysql']);
  await addRelation(staging, ['wordpress', 'logging']);
  await enterScope(staging, 'wordpress/0', WP_DB, {});
  await enterScope(staging, 'mysql/0', WP_DB, {});
  await enterScope(staging, 'wordpress/0', WP_LOGGING, {});
  await startAgents(staging, ['logging/0']);
  await enterScope(staging, 'logging/0', WP_LOGGING, {});
  await addMachines(staging);
  return staging;
}

/** Rounds of the cleanups and the agents, each a round's wait later, until the model is gone. */
async function untilGone(model: Store, rounds = 10): Promise<number> {
  for (let round = 1; round <= rounds; round++) {
    await runAllCleanups(model);
    await agentsTurn(model);
    await runAllCleanups(model);
    if (!(await getModel(model))) return round;
    clock += MODEL_ROUND_WAIT_MS;
  }
  return rounds + 1;
}

const notFoundMessage = async (op: () => Promise<unknown>) => {
  try {
    await op();
  } catch (e) {
    if (isDroverError(e, 'not-found')) return e.message;
    throw e;
  }
  return undefined;
};

describe('destroy-model', () => {
  it('takes a second model away entirely, leaving the model beside it and its application of the same name untouched', async () => {
    const mysql = await deploy(store, { charm: charms.mysql });
    await startAgents(store, mysql.units);
    const staging = await stagingModel();
    expect((await readModelState(staging)).units.map((u) => u.name).sort()).toEqual(['logging/0', 'mysql/0', 'wordpress/0']);
    const beside = await readModelState(store);

    expect(await destroyModel(staging)).toBe('dying');
    expect(await getModel(staging)).toMatchObject({ life: 'dying' });
    expect(await getCleanup(staging, modelCleanupId({ name: 'staging' }))).toMatchObject({ kind: 'model', target: 'staging' });
    expect(await untilGone(staging)).toBeLessThanOrEqual(10);

    const left = await readModelState(staging);
    expect({ ...left, items: undefined }).toEqual({
      applications: [],
      units: [],
      machines: [],
      relations: [],
      scopes: [],
      settings: [],
      cleanups: [],
      items: undefined,
    });
    // Only the status history is left, which DynamoDB's TTL expires (shared/domain/status-log.ts).
    expect(left.items.filter((i) => !String(i.pk).includes('#STATUSLOG#'))).toEqual([]);
    expect(await getModelName(store, 'staging')).toBeUndefined();
    expect(await notFoundMessage(() => storeOfModel(store, 'staging'))).toBe('model "staging" not found; see "drover models"');
    expect(await readModelState(store)).toEqual(beside);
  });

  it("a Dying model refuses new applications, machines and units in Juju's words, and destroying it again changes nothing", async () => {
    const staging = await stagingModel();
    await deploy(staging, { charm: charms.varnish, numUnits: 0 });
    expect(await destroyModel(staging)).toBe('dying');
    const refused = (op: () => Promise<unknown>, message: string) => expectRefusedUnchanged(staging, op, message, 'not-alive');
    await refused(
      () => deploy(staging, { charm: charms.varnish, name: 'cache' }),
      'cannot add application "cache": model "staging" is dying',
    );
    await refused(() => addMachines(staging), 'cannot add a new machine: model "staging" is dying');
    await refused(() => addUnits(staging, 'mysql'), 'cannot add a new machine: model "staging" is dying');
    await refused(() => addUnits(staging, 'mysql', { to: ['2'] }), 'cannot add unit to application "mysql": model "staging" is dying');
    await refused(
      () => addRelation(staging, ['wordpress', 'varnish']),
      'cannot add relation "wordpress:cache varnish:webcache": model "staging" is dying',
    );
    const before = await dumpTable(staging);
    expect(await destroyModel(staging)).toBe('already-dying');
    expect(await dumpTable(staging)).toEqual(before);
  });

  it('the refusal holds under concurrency: a deploy planned while the model was Alive cannot commit once it is Dying', async () => {
    const staging = await stagingModel();
    // Another process: its own snapshot cache, which last saw the model Alive.
    const other = await storeOfModel({ ...staging, cache: new SnapshotCache() }, 'staging');
    expect((await getModel(other))?.life).toBe('alive');
    await destroyModel(staging);
    await expect(deploy(other, { charm: charms.varnish })).rejects.toThrow('cannot add application "varnish": model "staging" is dying');
    expect(await readItem(staging, refs.application('varnish'))).toBeUndefined();
  });

  it('a unit in hook error holds the model Dying and destroying, blocked by that unit, until --force; then the name is free again', async () => {
    await addModel(store, { name: 'staging' });
    let staging = await storeOfModel(store, 'staging');
    const { units } = await deploy(staging, { charm: charms.mysql, numUnits: 2 });
    await startAgents(staging, units);
    await setUnitStatus(staging, 'mysql/0', { agent: { current: 'error', message: 'hook failed: "install"' } });
    await destroyModel(staging);

    expect(await untilGone(staging, 4)).toBe(5);
    expect(await getUnit(staging, 'mysql/1')).toBeUndefined();
    expect(await getUnit(staging, 'mysql/0')).toMatchObject({ life: 'dying' });
    const status = await readStatus(staging);
    expect(status.model['model-status']).toMatchObject({ current: 'destroying', life: 'dying' });
    expect(status.model['blocked-by']).toEqual([
      '1 application: mysql',
      '1 machine: 0',
      'unit mysql/0: its agent is in error (hook failed: "install"): run "drover resolved mysql/0", or "drover destroy-model staging --force"',
    ]);

    // `drover stuck` and the watchdog: the model, with what is left in it, beside the unit in error.
    const stuck = await listStuck(staging);
    expect(stuck.find((s) => s.kind === 'model')).toMatchObject({
      entity: 'model staging',
      life: 'dying',
      reasons: ['applications: mysql', 'machines: 0'],
    });
    expect(stuck.find((s) => s.entity === 'unit mysql/0')?.reasons).toEqual([
      'its agent is in error (hook failed: "install"): run "drover resolved mysql/0"',
    ]);

    expect(await destroyModel(staging, { force: true })).toBe('forcing');
    expect(await destroyModel(staging, { force: true })).toBe('already-dying');
    expect(await untilGone(staging)).toBeLessThanOrEqual(10);
    expect(await getModelName(store, 'staging')).toBeUndefined();

    const again = await addModel(store, { name: 'staging' });
    expect(again.uuid).not.toBe(staging.model);
    staging = await storeOfModel(store, 'staging');
    expect(staging.model).toBe(again.uuid);
    expect(await deploy(staging, { charm: charms.mysql })).toMatchObject({ units: ['mysql/0'], machines: ['0'] });
  });

  it("a runner that dies after any batch's work and before recording it loses nothing: the batch runs again", async () => {
    const staging = await stagingModel();
    await destroyModel(staging);
    const id = modelCleanupId({ name: 'staging' });
    for (let round = 0; round < 40 && (await getModel(staging)); round++) {
      const cleanup = await getCleanup(staging, id);
      if (cleanup && (!cleanup.notBefore || cleanup.notBefore <= new Date(clock).toISOString())) {
        // The step's work, then a crash: no cursor recorded. The retry repeats the same batch.
        await destroyModelContents(staging, cleanup);
        await runCleanupBatch(staging, id);
      }
      await runAllCleanups(staging);
      await agentsTurn(staging);
      clock += MODEL_ROUND_WAIT_MS;
    }
    expect(await getModel(staging)).toBeUndefined();
    expect(await getModelName(store, 'staging')).toBeUndefined();
    expect((await readModelState(staging)).items.filter((i) => !String(i.pk).includes('#STATUSLOG#'))).toEqual([]);
  });

  it("the changes function's cleanup step runs the model's cleanup from its stream record", async () => {
    await addModel(store, { name: 'empty' });
    const empty = await storeOfModel(store, 'empty');
    await addMachines(empty);
    await destroyModel(empty);
    const id = modelCleanupId({ name: 'empty' });
    const handler = streamBatchHandler(cleanupStep(empty, silentLogger), { inParallel: false });
    // Each batch records its cursor, itself a stream record: deliver each as the stream would.
    for (let sequence = 100; sequence < 120 && (await getModel(empty)); sequence++) {
      const item = await readItem(empty, refs.cleanup(id));
      if (!item) break;
      expect(await handler(streamEvent([streamRecord({ newItem: item, sequenceNumber: String(sequence) })]))).toEqual({
        batchItemFailures: [],
      });
      await agentsTurn(empty);
      clock += MODEL_ROUND_WAIT_MS;
    }
    expect(await getModel(empty)).toBeUndefined();
    expect(await getModelName(store, 'empty')).toBeUndefined();
  });
});
