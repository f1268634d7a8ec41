// The controller's models, found by name (shared/domain/models.ts): the store a request naming a
// model works against, and every model, for `models` and for the functions that sweep them all.
import type { Model } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import type { ModelName } from '../../domain/models.js';
import { refs } from '../../domain/plan.js';
import { collections } from '../engine/keys.js';
import { getItem, getMany, getModel, listAll } from '../engine/reads.js';
import { storeForModel, type Store } from '../engine/store.js';

export const getModelName = (store: Store, name: string) => getItem<ModelName>(store, refs.modelName(name));

export const modelNotFound = (name: string) => notFound(`model "${name}" not found; see "drover models"`);

/** The store of the model called `name`; Juju's words when there is none. */
export async function storeOfModel(store: Store, name: string): Promise<Store> {
  const entry = await getModelName(store, name);
  if (!entry) throw modelNotFound(name);
  return storeForModel(store, entry.key);
}

/** Every model's name and key, by name. */
export async function listModelNames(store: Store): Promise<ModelName[]> {
  return getMany<ModelName>(store, await listAll(store, collections.modelNames()));
}

/** Every model's store: what the functions that act on the whole controller go through. */
export async function storesOfModels(store: Store): Promise<Store[]> {
  return (await listModelNames(store)).map((entry) => storeForModel(store, entry.key));
}

/** Every model, as `models` and `show-model` show them. */
export async function listModels(store: Store): Promise<Array<{ key: string; model: Model }>> {
  const found = await Promise.all(
    (await listModelNames(store)).map(async (entry) => ({ key: entry.key, model: await getModel(storeForModel(store, entry.key)) })),
  );
  return found.filter((m): m is { key: string; model: Model } => m.model !== undefined);
}
