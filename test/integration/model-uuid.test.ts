// A model's uuid (JUJU_MODEL_UUID in hooks): random, fixed at creation, and given once to a model
// made before drover stored one, however many controllers start at the same moment.
import { beforeEach, describe, expect, it } from 'vitest';
import { refs } from '#shared/domain/plan.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getModel } from '#shared/state/engine/reads.js';
import { runOperation } from '#shared/state/engine/run-operation.js';
import type { Store } from '#shared/state/engine/store.js';
import { freshStore } from '../support/table.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let store: Store;
beforeEach(async () => {
  store = await freshStore();
});

describe('the model uuid', () => {
  it('is a random uuid, stored at creation and never changed', async () => {
    const created = await ensureModel(store);
    expect(created.uuid).toMatch(UUID);
    expect((await ensureModel(store)).uuid).toBe(created.uuid);
    expect((await getModel(store))?.uuid).toBe(created.uuid);
    const other = await ensureModel(await freshStore());
    expect(other.uuid).not.toBe(created.uuid);
  });

  it('is given once to a model made without one, even by concurrent starts', async () => {
    await runOperation(store, 'legacy model', async () => ({
      changes: [
        {
          op: 'create',
          ref: refs.model(),
          value: { name: store.model, life: 'alive', constraints: {}, defaultSeries: 'jammy', constraintsVersion: 0 },
        },
      ],
      result: undefined,
    }));
    expect((await getModel(store))?.uuid).toBeUndefined();
    const results = await Promise.all([ensureModel(store), ensureModel(store), ensureModel(store)]);
    const stored = (await getModel(store))?.uuid;
    expect(stored).toMatch(UUID);
    expect(results.map((m) => m.uuid)).toEqual([stored, stored, stored]);
    expect((await getModel(store))?.defaultSeries).toBe('jammy');
  });
});
