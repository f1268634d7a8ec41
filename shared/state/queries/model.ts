// The model as operations and status read it: it must exist (bootstrap made it), and its
// constraints; bootstrap and the model's settings are changed in shared/state/operations/model.ts.
import type { Constraints } from '../../domain/constraints.js';
import type { Model } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import { getModel } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export async function requireModel(store: Store): Promise<Model> {
  return foundModel(store, await getModel(store));
}

/** The model, read along with other items (getBatch); the error when there is none. */
export function foundModel(store: Store, model: Model | undefined): Model {
  if (!model) throw notFound(`model "${store.model}" not found; bootstrap a controller first`);
  return model;
}

export async function getModelConstraints(store: Store): Promise<Constraints> {
  return (await requireModel(store)).constraints;
}
