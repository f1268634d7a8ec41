// The model as operations and status read it: it must exist (bootstrap made it), and its
// constraints; bootstrap and the model's settings are changed in shared/state/operations/model.ts.
import type { Constraints } from '../../domain/constraints.js';
import type { Model } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import { DEFAULT_MODEL } from '../../domain/models.js';
import { getModel } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export async function requireModel(store: Store): Promise<Model> {
  return foundModel(store, await getModel(store));
}

/** The model, read along with other items (getBatch); the error when there is none. */
export function foundModel(store: Store, model: Model | undefined): Model {
  // A model's key is its name only for bootstrap's; any other's is gone once its key is known.
  if (!model)
    throw notFound(
      store.model === DEFAULT_MODEL
        ? `model "${store.model}" not found; bootstrap a controller first`
        : 'model not found; it has been destroyed',
    );
  return model;
}

export async function getModelConstraints(store: Store): Promise<Constraints> {
  return (await requireModel(store)).constraints;
}
