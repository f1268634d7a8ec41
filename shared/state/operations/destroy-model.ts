// destroy-model (shared/domain/plans/destroy-model.ts decides): the model goes Dying with its
// `model` cleanup in one transaction; the cleanup (cleanup/model.ts) does the rest.
import { modelCleanupId, planDestroyModel, type DestroyModelResult, type StorageDisposal } from '../../domain/plans/destroy-model.js';
import { readStorage } from '../queries/storage.js';
import { getCleanup } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { requireModel } from '../queries/model.js';

/**
 * Destroys the store's model: Dying now, removed by its cleanup once its applications and
 * machines are gone. Again on a Dying model it changes nothing, unless `force` is new: then the
 * cleanup forces the model's applications, units and machines out (units in error included).
 */
export async function destroyModel(
  store: Store,
  options: { force?: boolean; storage?: StorageDisposal } = {},
): Promise<DestroyModelResult> {
  return runOperation(store, `cannot destroy model`, async (store) => {
    const model = await requireModel(store);
    // Persistent storage (EBS volumes) outlives its units: the user must say what becomes of it.
    const persistentStorage =
      model.life === 'alive' && !options.storage
        ? (await readStorage(store)).map((d) => d.instance).filter((i) => i.persistent && i.life !== 'dead')
        : [];
    return planDestroyModel(
      { model, cleanup: await getCleanup(store, modelCleanupId(model)), persistentStorage },
      options,
      store.now().toISOString(),
    );
  });
}
