// The controller's model defaults: read by add-model and `model-defaults`, changed by one versioned
// write (shared/domain/plans/model-defaults.ts decides).
import type { ModelDefaults } from '../../domain/model-defaults.js';
import { refs } from '../../domain/plan.js';
import { planSetModelDefaults } from '../../domain/plans/model-defaults.js';
import type { ModelConfigChange } from '../../domain/plans/model-config.js';
import { getItem } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export const getModelDefaults = (store: Store) => getItem<ModelDefaults>(store, refs.modelDefaults());

/** model-defaults key=value / --reset: the defaults as they are after the change. */
export async function setModelDefaults(store: Store, change: ModelConfigChange): Promise<ModelDefaults | undefined> {
  return runOperation(store, 'cannot set model defaults', async (store) => planSetModelDefaults(await getModelDefaults(store), change));
}
