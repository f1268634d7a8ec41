import { beforeEach, describe, expect, it } from 'vitest';
import { cleanupStep } from '../../functions/changes/cleanups.js';
import { streamBatchHandler } from '../../functions/stream-batch.js';
import { setUnitStatus } from '../../shared/state/operations/agent-status.js';
import { listCleanups } from '../../shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '../../shared/state/operations/deploy.js';
import { destroyApplication } from '../../shared/state/operations/destroy-application.js';
import { ensureModel } from '../../shared/state/operations/model.js';
import { getUnit } from '../../shared/state/engine/reads.js';
import { refs } from '../../shared/domain/plan.js';
import type { Store } from '../../shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { readItem, streamEvent, streamRecord } from '../support/stream.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

const silent = { info: () => undefined, error: () => undefined } as never;

describe("the changes function's cleanup step", () => {
  it('runs a batch for each cleanup document in the stream, the same when delivered twice', async () => {
    const { units } = await deploy(store, { charm: charms.mysql, numUnits: 3 });
    for (const u of units) await setUnitStatus(store, u, { agent: { current: 'idle' } });
    await destroyApplication(store, 'mysql');
    const [cleanup] = await listCleanups(store);
    const item = await readItem(store, refs.cleanup(cleanup!.id));
    const record = streamRecord({ newItem: item!, sequenceNumber: '100' });
    const handler = streamBatchHandler(cleanupStep(store, silent), { inParallel: false });
    expect(await handler(streamEvent([record, record]))).toEqual({ batchItemFailures: [] });
    expect(await handler(streamEvent([record]))).toEqual({ batchItemFailures: [] });
    for (const u of units) expect((await getUnit(store, u))?.life).toBe('dying');
    expect(await listCleanups(store)).toEqual([]);
  });
});
