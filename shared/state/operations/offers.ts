// offer, remove-offer, consume, remove-saas: read both models' sides, plan
// (shared/domain/plans/offers.ts), commit one transaction.
import type { Application, Model, Relation } from '../../domain/entities.js';
import type { Offer, RemoteApplication } from '../../domain/cross-model.js';
import { refs } from '../../domain/plan.js';
import { planConsume, planOffer, planRemoveOffer, planRemoveSaas, type OfferIntent } from '../../domain/plans/offers.js';
import { getApplication, getBatch, getItem, getMany } from '../engine/reads.js';
import { crossModelFactsOf } from '../queries/cross-model-reads.js';
import { relationsOf } from '../queries/relation-reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { foundModel } from '../queries/model.js';
import { storeOfModel } from '../queries/models.js';

export async function addOffer(store: Store, intent: OfferIntent): Promise<{ url: string }> {
  return runOperation(store, `cannot add application offer "${intent.name}"`, async (store) => {
    const [model, application, existing] = await getBatch<[Model, Application, Offer]>(store, [
      refs.model(),
      refs.application(intent.application),
      refs.offer(store.model, intent.name),
    ]);
    const snapshot = {
      model: foundModel(store, model),
      modelKey: store.model,
      ...(application ? { application } : {}),
      ...(existing ? { existing } : {}),
    };
    return planOffer(snapshot, intent, store.now().toISOString());
  });
}

export async function removeOffer(store: Store, intent: { name: string; force: boolean }): Promise<void> {
  return runOperation(store, `cannot delete application offer "${intent.name}"`, async (store) => {
    const offer = await getItem<Offer>(store, refs.offer(store.model, intent.name));
    if (!offer || offer.connections.length === 0 || !intent.force)
      return planRemoveOffer({ modelKey: store.model, ...(offer ? { offer } : {}) }, intent);
    // Forced with connections: the relations through it go too, on both sides.
    const application = await getApplication(store, offer.application);
    const relations = application ? (await relationsOf(store, [application])).filter((r) => r.crossModel?.offer === offer.name) : [];
    const crossModel = await crossModelFactsOf(store, relations);
    return planRemoveOffer(
      { modelKey: store.model, offer, relations, applications: application ? [application] : [], crossModel },
      intent,
      store.now().toISOString(),
    );
  });
}

/** consume: `store` is the consuming model's; the offer is looked for in the model named `offerModel`. */
export async function consumeOffer(store: Store, intent: { offerModel: string; offer: string; alias: string }): Promise<{ name: string }> {
  const offering = await storeOfModel(store, intent.offerModel);
  return runOperation(store, `cannot add remote application "${intent.alias}"`, async (store) => {
    const [model, offer, existing, application] = await getBatch<[Model, Offer, RemoteApplication, Application]>(store, [
      refs.model(),
      refs.offer(offering.model, intent.offer),
      refs.remoteApplication(intent.alias),
      refs.application(intent.alias),
    ]);
    const snapshot = {
      model: foundModel(store, model),
      modelKey: store.model,
      offerModel: intent.offerModel,
      offerModelKey: offering.model,
      ...(offer ? { offer } : {}),
      ...(existing ? { existing } : {}),
      ...(application ? { application } : {}),
    };
    return planConsume(snapshot, intent, store.now().toISOString());
  });
}

export async function removeSaas(store: Store, name: string): Promise<void> {
  return runOperation(store, `cannot remove remote application "${name}"`, async (store) => {
    const saas = await getItem<RemoteApplication>(store, refs.remoteApplication(name));
    const offer = saas ? await getItem<Offer>(store, refs.offer(saas.offerModelKey, saas.offer)) : undefined;
    const relations = saas?.relations.length ? await getMany<Relation>(store, saas.relations.map(refs.relation)) : [];
    const names = [...new Set(relations.flatMap((r) => r.endpoints.map((ep) => ep.application)))].filter((a) => a !== name);
    const [applications, crossModel] = await Promise.all([
      getMany<Application>(store, names.map(refs.application)),
      crossModelFactsOf(store, relations),
    ]);
    return planRemoveSaas(
      { modelKey: store.model, ...(saas ? { saas } : {}), ...(offer ? { offer } : {}), relations, applications, crossModel },
      { name },
      store.now().toISOString(),
    );
  });
}
