// The store a user request acts through: the controller's for operations on its models, else the
// store of the model the request names (shared/api/model-header.ts), bootstrap's when it names none.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { checkModelName, DEFAULT_MODEL } from '#shared/domain/models.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { getModelName, modelNotFound } from '#shared/state/queries/models.js';

export async function storeOfRequest(store: Store, event: APIGatewayProxyEventV2, scope: 'model' | 'controller'): Promise<Store> {
  if (scope === 'controller') return store;
  const name = event.headers?.[MODEL_HEADER] ?? DEFAULT_MODEL;
  checkModelName(name);
  // Bootstrap's model is keyed by its name, and one made before models had names has no name's
  // item yet (ensureModel gives it one): its store is known without it.
  const entry = await getModelName(store, name);
  if (entry) return storeForModel(store, entry.key);
  if (name === DEFAULT_MODEL) return storeForModel(store, DEFAULT_MODEL);
  throw modelNotFound(name);
}
