// The controller's models: add-model, models, show-model, destroy-model. Their scope is the controller (the
// request names the model, if any, in its body), so they work whichever model the CLI has selected.
import { parseConstraints } from '#shared/domain/constraints.js';
import { modelSummary } from '#shared/api/model-summary.js';
import type { RequestOf } from '#shared/api/requests.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import { addModel } from '#shared/state/operations/model.js';
import { listModels, storeOfModel } from '#shared/state/queries/models.js';
import { requireModel } from '#shared/state/queries/model.js';
import type { Store } from '#shared/state/engine/store.js';

export const modelRoutes = {
  'add-model': async (ctx: { store: Store }, body: RequestOf<'add-model'>) =>
    modelSummary(
      await addModel(ctx.store, {
        name: body.name,
        ...(body.config ? { config: body.config } : {}),
        ...(body.constraints !== undefined ? { constraints: parseConstraints(body.constraints) } : {}),
      }),
    ),
  models: async (ctx: { store: Store }) => ({
    models: (await listModels(ctx.store)).map(({ model }) => modelSummary(model)).sort((a, b) => a.name.localeCompare(b.name)),
  }),
  'destroy-model': async (ctx: { store: Store }, body: RequestOf<'destroy-model'>) => ({
    result: await destroyModel(await storeOfModel(ctx.store, body.name), body.force ? { force: true } : {}),
  }),
  'show-model': async (ctx: { store: Store }, body: RequestOf<'show-model'>) =>
    modelSummary(await requireModel(await storeOfModel(ctx.store, body.name))),
};
