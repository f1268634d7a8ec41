// The controller's models: add-model, model-defaults, models, show-model, destroy-model. Their scope is the controller (the
// request names the model, if any, in its body), so they work whichever model the CLI has selected.
import { parseConstraints } from '#shared/domain/constraints.js';
import { controllerUuid, modelSummary } from '#shared/api/model-summary.js';
import type { RequestOf } from '#shared/api/requests.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import { addModel } from '#shared/state/operations/model.js';
import { getModelDefaults, setModelDefaults } from '#shared/state/operations/model-defaults.js';
import { modelDefaultsView } from '#shared/domain/model-defaults.js';
import { listModels, storeOfModel } from '#shared/state/queries/models.js';
import { requireModel } from '#shared/state/queries/model.js';
import type { Store } from '#shared/state/engine/store.js';

interface ModelRouteContext {
  store: Store;
  controller: string;
}

const uuidOf = (ctx: ModelRouteContext) => controllerUuid(ctx.controller, ctx.store.table);

export const modelRoutes = {
  'add-model': async (ctx: ModelRouteContext, body: RequestOf<'add-model'>) =>
    modelSummary(
      await addModel(ctx.store, {
        name: body.name,
        ...(body.config ? { config: body.config } : {}),
        ...(body.constraints !== undefined ? { constraints: parseConstraints(body.constraints) } : {}),
      }),
      uuidOf(ctx),
    ),
  'model-defaults': async (ctx: ModelRouteContext, body: RequestOf<'model-defaults'>) => ({
    defaults: modelDefaultsView(
      body.set || body.reset
        ? await setModelDefaults(ctx.store, { ...(body.set ? { set: body.set } : {}), ...(body.reset ? { reset: body.reset } : {}) })
        : await getModelDefaults(ctx.store),
    ),
  }),
  models: async (ctx: ModelRouteContext) => ({
    models: (await listModels(ctx.store)).map(({ model }) => modelSummary(model, uuidOf(ctx))).sort((a, b) => a.name.localeCompare(b.name)),
  }),
  'destroy-model': async (ctx: ModelRouteContext, body: RequestOf<'destroy-model'>) => ({
    result: await destroyModel(await storeOfModel(ctx.store, body.name), {
      ...(body.force ? { force: true } : {}),
      ...(body.storage ? { storage: body.storage } : {}),
    }),
  }),
  'show-model': async (ctx: ModelRouteContext, body: RequestOf<'show-model'>) =>
    modelSummary(await requireModel(await storeOfModel(ctx.store, body.name)), uuidOf(ctx)),
};
