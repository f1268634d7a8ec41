// Offers and remote applications of a model, as `offers`, `show-offer`, `find-offers` and status
// show them.
import type { Application, Model } from '../../domain/entities.js';
import type { Offer, RemoteApplication } from '../../domain/cross-model.js';
import { notFound } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { collections } from '../engine/keys.js';
import { getItem, getMany, getModel, listAll } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

/** The model's offers, by name. */
export async function listOffers(store: Store): Promise<Offer[]> {
  const offers = await getMany<Offer>(store, await listAll(store, collections.offers(store.model)));
  return offers.sort((a, b) => a.name.localeCompare(b.name));
}

/** The model's remote applications (SAAS), by name. */
export async function listRemoteApplications(store: Store): Promise<RemoteApplication[]> {
  const saas = await getMany<RemoteApplication>(store, await listAll(store, collections.remoteApplications(store.model)));
  return saas.sort((a, b) => a.name.localeCompare(b.name));
}

export async function requireOffer(store: Store, name: string, url: string): Promise<Offer> {
  const offer = await getItem<Offer>(store, refs.offer(store.model, name));
  if (!offer) throw notFound(`application offer "${url}" not found`);
  return offer;
}

/** An offer with what its views need: its model and its application. */
export interface OfferInModel {
  offer: Offer;
  model: Model;
  application?: Application;
}

export async function offersInModel(store: Store, offers?: Offer[]): Promise<OfferInModel[]> {
  const list = offers ?? (await listOffers(store));
  if (list.length === 0) return [];
  const [model, applications] = await Promise.all([
    getModel(store),
    getMany<Application>(store, [...new Set(list.map((o) => o.application))].map(refs.application)),
  ]);
  if (!model) return [];
  return list.map((offer) => {
    const application = applications.find((a) => a.name === offer.application);
    return { offer, model, ...(application ? { application } : {}) };
  });
}
