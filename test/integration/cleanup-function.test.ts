import { beforeEach, describe, expect, it } from 'vitest';
import { cleanupStep } from '../../functions/changes/cleanups.js';
import { sweep } from '../../functions/cleanup/handler.js';
import { streamBatchHandler } from '../../functions/stream-batch.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { listCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { getUnit } from '#shared/state/engine/reads.js';
import { refs } from '#shared/domain/plan.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { readItem, streamEvent, streamRecord } from '../support/stream.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

describe("the changes function's cleanup step", () => {
  it('runs a batch for each cleanup document in the stream, the same when delivered twice', async () => {
    const { units } = await deploy(store, { charm: charms.mysql, numUnits: 3 });
    for (const u of units) await setUnitStatus(store, u, { agent: { current: 'idle' } });
    await destroyApplication(store, 'mysql');
    const [cleanup] = await listCleanups(store);
    const item = await readItem(store, refs.cleanup(cleanup!.id));
    const record = streamRecord({ newItem: item!, sequenceNumber: '100' });
    const handler = streamBatchHandler(cleanupStep(store, silentLogger), { inParallel: false });
    expect(await handler(streamEvent([record, record]))).toEqual({ batchItemFailures: [] });
    expect(await handler(streamEvent([record]))).toEqual({ batchItemFailures: [] });
    for (const u of units) expect((await getUnit(store, u))?.life).toBe('dying');
    expect(await listCleanups(store)).toEqual([]);
  });

  it('runs the documents of two models in one batch, each in its own model', async () => {
    const other = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    const records = [];
    for (const s of [store, other]) {
      const { units } = await deploy(s, { charm: charms.mysql, numUnits: 2 });
      for (const u of units) await setUnitStatus(s, u, { agent: { current: 'idle' } });
      await destroyApplication(s, 'mysql');
      const [cleanup] = await listCleanups(s);
      records.push(
        streamRecord({ newItem: (await readItem(s, refs.cleanup(cleanup!.id)))!, sequenceNumber: String(200 + records.length) }),
      );
    }
    const handler = streamBatchHandler(cleanupStep(store, silentLogger), { inParallel: false });
    expect(await handler(streamEvent(records))).toEqual({ batchItemFailures: [] });
    for (const s of [store, other]) {
      expect((await getUnit(s, 'mysql/1'))?.life).toBe('dying');
      expect(await listCleanups(s)).toEqual([]);
    }
  });
});

describe('the cleanup sweep', () => {
  it("runs every model's due cleanups", async () => {
    const other = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    for (const s of [store, other]) {
      await deploy(s, { charm: charms.mysql, numUnits: 1 });
      await setUnitStatus(s, 'mysql/0', { agent: { current: 'idle' } });
      await destroyApplication(s, 'mysql');
    }
    expect(await sweep(store)).toBe(2);
    for (const s of [store, other]) expect((await getUnit(s, 'mysql/0'))?.life).toBe('dying');
  });
});
