// Cross-model relations' user routes: offer, remove-offer, offers, show-offer, find-offers,
// consume, and status' cross-model sections (shared/domain/cross-model.ts).
import type { RequestOf } from '#shared/api/requests.js';
import { offerUrl } from '#shared/domain/cross-model.js';
import { endpointsView, offerListItem, offerStatusView, remoteApplicationStatusView } from '#shared/domain/cross-model-views.js';
import type { Application, Relation } from '#shared/domain/entities.js';
import { refs } from '#shared/domain/plan.js';
import { getItem, getMany } from '#shared/state/engine/reads.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { addOffer, consumeOffer, removeOffer } from '#shared/state/operations/offers.js';
import type { Offer } from '#shared/domain/cross-model.js';
import { requireModel } from '#shared/state/queries/model.js';
import { storesOfModels } from '#shared/state/queries/models.js';
import { listRemoteApplications, offersInModel, requireOffer } from '#shared/state/queries/offers.js';

type Ctx = { store: Store; controller: string };

/** Juju's access level for the offer's owner: drover has one user, admin of every model. */
const ADMIN_ACCESS = 'admin';

/** For each endpoint of `name`, the other applications its relations reach. */
function relationsByEndpoint(name: string, relations: Relation[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const relation of relations) {
    const own = relation.endpoints.find((ep) => ep.application === name);
    if (!own) continue;
    const others = relation.endpoints.filter((ep) => ep.application !== name).map((ep) => ep.application);
    out[own.name] = [...new Set([...(out[own.name] ?? []), ...others])].sort();
  }
  return out;
}

export const offerRoutes = {
  offer: async (ctx: Ctx, body: RequestOf<'offer'>) =>
    addOffer(ctx.store, { application: body.application, endpoints: body.endpoints, name: body.name ?? body.application }),
  'remove-offer': async (ctx: Ctx, body: RequestOf<'remove-offer'>) => {
    await removeOffer(ctx.store, { name: body.offer, force: body.force === true });
    return {};
  },
  offers: async (ctx: Ctx) => {
    const found = await offersInModel(ctx.store);
    return {
      offers: Object.fromEntries(found.map((f) => [f.offer.name, offerListItem(f.offer, f.model.name, ctx.controller, f.application)])),
    };
  },
  'show-offer': async (ctx: Ctx, body: RequestOf<'show-offer'>) => {
    const model = await requireModel(ctx.store);
    const url = offerUrl(model.name, body.offer);
    const offer = await requireOffer(ctx.store, body.offer, url);
    return { [url]: { access: ADMIN_ACCESS, endpoints: endpointsView(offer.endpoints), users: { admin: { access: ADMIN_ACCESS } } } };
  },
  'find-offers': async (ctx: Ctx) => {
    const found = [];
    for (const store of await storesOfModels(ctx.store)) found.push(...(await offersInModel(store)));
    found.sort((a, b) => offerUrl(a.model.name, a.offer.name).localeCompare(offerUrl(b.model.name, b.offer.name)));
    return {
      offers: Object.fromEntries(
        found.map((f) => [offerUrl(f.model.name, f.offer.name), { access: ADMIN_ACCESS, endpoints: endpointsView(f.offer.endpoints) }]),
      ),
    };
  },
  consume: async (ctx: Ctx, body: RequestOf<'consume'>) =>
    consumeOffer(ctx.store, { offerModel: body.model, offer: body.offer, alias: body.alias ?? body.offer }),
  'cross-model-status': async (ctx: Ctx) => {
    const [offers, saas] = await Promise.all([offersInModel(ctx.store), listRemoteApplications(ctx.store)]);
    const endpoints: Record<string, unknown> = {};
    for (const remote of saas) {
      const offering = storeForModel(ctx.store, remote.offerModelKey);
      const [offer, application, relations] = await Promise.all([
        getItem<Offer>(offering, refs.offer(remote.offerModelKey, remote.offer)),
        getItem<Application>(offering, refs.application(remote.application)),
        getMany<Relation>(ctx.store, remote.relations.map(refs.relation)),
      ]);
      endpoints[remote.name] = remoteApplicationStatusView(
        remote,
        { ...(offer ? { offer } : {}), ...(application ? { application } : {}) },
        relationsByEndpoint(remote.name, relations),
      );
    }
    return {
      'application-endpoints': endpoints,
      offers: Object.fromEntries(offers.map((f) => [f.offer.name, offerStatusView(f.offer, f.application)])),
    };
  },
};
