// The models a controller-wide sweep goes through (the watchdog, the cleanup sweep, the
// provisioner's full reconcile, reviving and resuming agents). Every model has its name's item
// (shared/domain/models.ts), but `default` may not have it yet: a controller made before there
// were many models gets it only when its model is next ensured (planEnsureModel). Its machines
// must not go unswept meanwhile, nor its instances be taken for strays of a model that is gone.
import { DEFAULT_MODEL_KEY } from '../../domain/models.js';
import { storeForModel, type Store } from '../engine/store.js';
import { storesOfModels } from './models.js';

/** Every model's store, and `default`'s whether or not it has its name's item. */
export async function storesToSweep(store: Store): Promise<Store[]> {
  const stores = await storesOfModels(store);
  return stores.some((s) => s.model === DEFAULT_MODEL_KEY) ? stores : [storeForModel(store, DEFAULT_MODEL_KEY), ...stores];
}
