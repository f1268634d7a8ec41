// offer, remove-offer, consume and remove-saas: the offer lives in the offering model, the remote
// application (SAAS) in the consuming one, and each rule between them is one transaction that
// asserts both sides (consume asserts the offer it consumes; remove-offer asserts it has no
// connections unless forced). After Juju 3.6's state
// (https://github.com/juju/juju/blob/3.6/state/applicationoffers.go,
// https://github.com/juju/juju/blob/3.6/state/remoteapplication.go).
import { charmEndpoints } from '../charm.js';
import type { Application, Model, Relation } from '../entities.js';
import { destroyOtherSide, type CrossModelFacts } from './cross-model-relation.js';
import { leaveOfferConsumers, removeRelation, type CrossModelReferences } from './references.js';
import { alreadyExists, DroverError, invalidArgument, notAlive, notFound } from '../errors.js';
import { crossModelKey, offerUrl, type Offer, type OfferedEndpoint, type RemoteApplication } from '../cross-model.js';
import { isValidApplicationName } from '../names.js';
import { done, refs, type Change, type Plan } from '../plan.js';

export interface OfferSnapshot {
  model: Model;
  /** The offering model's key (its store's). */
  modelKey: string;
  application?: Application;
  existing?: Offer;
}

export interface OfferIntent {
  application: string;
  endpoints: string[];
  name: string;
}

const sameEndpoints = (a: OfferedEndpoint[], b: OfferedEndpoint[]) =>
  a.length === b.length && a.every((ep, i) => ep.name === b[i]!.name && ep.role === b[i]!.role && ep.interface === b[i]!.interface);

/** offer: a new offer of an Alive application's endpoints; the same offer again changes nothing. */
export function planOffer(snapshot: OfferSnapshot, intent: OfferIntent, now: string): Plan<{ url: string }> {
  const cannot = `cannot add application offer "${intent.name}"`;
  const url = offerUrl(snapshot.model.name, intent.name);
  if (!isValidApplicationName(intent.name)) throw invalidArgument(`${cannot}: offer name "${intent.name}" not valid`);
  const app = snapshot.application;
  if (!app) throw notFound(`${cannot}: application "${intent.application}" not found`);
  if (snapshot.model.life !== 'alive') throw notAlive(`${cannot}: model "${snapshot.model.name}" is ${snapshot.model.life}`);
  if (app.life !== 'alive') throw notAlive(`${cannot}: application "${app.name}" is not alive`);
  const known = charmEndpoints(app.charm);
  const endpoints: OfferedEndpoint[] = intent.endpoints.map((name) => {
    const ep = known.find((e) => e.name === name);
    // Juju offers neither peer endpoints nor ones the charm lacks.
    if (!ep || ep.role === 'peer') throw notFound(`${cannot}: application "${app.name}" has no "${name}" relation`);
    return { name: ep.name, role: ep.role, interface: ep.interface };
  });
  const existing = snapshot.existing;
  if (existing) {
    if (existing.application === app.name && sameEndpoints(existing.endpoints, endpoints)) return done({ url });
    throw alreadyExists(`${cannot}: application offer already exists`);
  }
  const offer: Offer = { name: intent.name, application: app.name, endpoints, consumers: [], connections: [], createdAt: now };
  return {
    changes: [
      { op: 'create', ref: refs.offer(snapshot.modelKey, offer.name), value: { ...offer } },
      // The endpoints were read from the charm: a concurrent upgrade-charm re-plans.
      {
        op: 'update',
        ref: refs.application(app.name),
        addToSet: { offers: [offer.name] },
        expect: { life: 'alive', equals: { charmUrl: app.charmUrl } },
      },
      { op: 'check', ref: refs.model(), expect: { life: 'alive' } },
    ],
    result: { url },
  };
}

export interface RemoveOfferSnapshot {
  modelKey: string;
  offer?: Offer;
  /** The offering model's records of the relations made through the offer, and what destroying them needs. */
  relations?: Relation[];
  applications?: Application[];
  crossModel?: Map<string, CrossModelFacts>;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * remove-offer: refused while relations go through it ("offer has N relations"), unless forced;
 * forced, those relations are destroyed with it, on both sides. Consumers are not held: their SAAS
 * shows the offer gone (status' `terminated`).
 */
export function planRemoveOffer(snapshot: RemoveOfferSnapshot, intent: { name: string; force: boolean }, now = ''): Plan<void> {
  const offer = snapshot.offer;
  if (!offer) throw notFound(`application offer "${intent.name}" not found`);
  const connections = offer.connections.length;
  if (connections > 0 && !intent.force)
    throw new DroverError(
      'has-assignments',
      `cannot delete application offer "${offer.name}": offer has ${plural(connections, 'relation')}`,
    );
  const changes: Change[] = [];
  for (const relation of snapshot.relations ?? []) {
    if (relation.life !== 'alive' || relation.crossModel?.offer !== offer.name) continue;
    // The offer goes in this transaction: neither side's removal updates it.
    const facts = withoutOffer(snapshot.crossModel?.get(relation.key), offer, snapshot.modelKey);
    changes.push(...destroyRelationSide(relation, snapshot.applications ?? [], facts, now));
  }
  changes.push(
    // The connections counted are the ones decided on: a relation made meanwhile re-plans.
    { op: 'remove', ref: refs.offer(snapshot.modelKey, offer.name), expect: { setSize: { connections } } },
    { op: 'update', ref: refs.application(offer.application), removeFromSet: { offers: [offer.name] } },
  );
  return { changes, result: undefined };
}

/** The facts with the offer being removed left out of both sides' references. */
function withoutOffer(facts: CrossModelFacts | undefined, offer: Offer, modelKey: string): CrossModelFacts {
  const strip = (r: CrossModelReferences, key: string): CrossModelReferences => {
    const { offer: found, ...rest } = r;
    return found && found.name === offer.name && key === modelKey ? rest : r;
  };
  const references = strip(facts?.references ?? { modelKey }, modelKey);
  const other = facts?.other;
  return {
    references,
    ...(other ? { other: { ...other, references: strip(other.references, modelKey) } } : {}),
  };
}

export interface ConsumeSnapshot {
  /** The consuming model. */
  model: Model;
  modelKey: string;
  /** The offering model's name and key, and its offer when it exists. */
  offerModel: string;
  offerModelKey: string;
  offer?: Offer;
  /** What the consuming model already has under the alias. */
  existing?: RemoteApplication;
  application?: Application;
}

/** consume: a remote application for an offer of another model; the same consume again changes nothing. */
export function planConsume(snapshot: ConsumeSnapshot, intent: { offer: string; alias: string }, now: string): Plan<{ name: string }> {
  const url = offerUrl(snapshot.offerModel, intent.offer);
  const cannot = `cannot add remote application "${intent.alias}"`;
  if (!isValidApplicationName(intent.alias)) throw invalidArgument(`invalid application name "${intent.alias}"`);
  const offer = snapshot.offer;
  if (!offer) throw notFound(`application offer "${url}" not found`);
  if (snapshot.modelKey === snapshot.offerModelKey) throw invalidArgument(`${cannot}: an offer cannot be consumed in its own model`);
  if (snapshot.model.life !== 'alive') throw notAlive(`${cannot}: model "${snapshot.model.name}" is ${snapshot.model.life}`);
  if (snapshot.application) throw alreadyExists(`${cannot}: local application with same name already exists`);
  const existing = snapshot.existing;
  if (existing) {
    if (existing.url === url && existing.life === 'alive') return done({ name: existing.name });
    throw alreadyExists(`${cannot}: remote application already exists`);
  }
  const saas: RemoteApplication = {
    name: intent.alias,
    life: 'alive',
    url,
    offerModel: snapshot.offerModel,
    offerModelKey: snapshot.offerModelKey,
    offer: offer.name,
    application: offer.application,
    endpoints: offer.endpoints,
    relations: [],
    createdAt: now,
  };
  const consumer = crossModelKey(snapshot.modelKey, saas.name);
  const changes: Change[] = [
    { op: 'create', ref: refs.remoteApplication(saas.name), value: { ...saas } },
    // Applications and remote applications share the model's names: a deploy meanwhile re-plans.
    { op: 'absent', ref: refs.application(saas.name) },
    // The offer as read (its application): one removed or replaced meanwhile re-plans.
    {
      op: 'update',
      ref: refs.offer(snapshot.offerModelKey, offer.name),
      addToSet: { consumers: [consumer] },
      expect: { equals: { application: offer.application, createdAt: offer.createdAt } },
    },
    { op: 'check', ref: refs.model(), expect: { life: 'alive' } },
  ];
  return { changes, result: { name: saas.name } };
}

export interface RemoveSaasSnapshot {
  modelKey: string;
  saas?: RemoteApplication;
  /** The offer it consumes, when it still exists. */
  offer?: Offer;
  /** The relations it is in, this model's applications in them, and what destroying them needs. */
  relations?: Relation[];
  applications?: Application[];
  crossModel?: Map<string, CrossModelFacts>;
}

/**
 * remove-saas: a remote application in no relation goes at once, and leaves its offer's consumers.
 * One in relations destroys them (on both sides, cross-model-relation.ts) and is Dying until the
 * last of them is removed, which removes it too (references.ts); when none has a unit in scope,
 * everything goes in this transaction.
 */
export function planRemoveSaas(snapshot: RemoveSaasSnapshot, intent: { name: string }, now = ''): Plan<void> {
  const saas = snapshot.saas;
  if (!saas) throw notFound(`remote application "${intent.name}" not found`);
  if (saas.life !== 'alive' && saas.relations.length > 0) return done(undefined);
  const relations = (snapshot.relations ?? []).filter((r) => saas.relations.includes(r.key));
  const removedNow = relations.filter((r) => r.life === 'alive' && r.unitCount === 0);
  const staying = saas.relations.length - removedNow.length;
  const changes: Change[] = [];
  for (const relation of relations) {
    if (relation.life !== 'alive') continue;
    const facts = snapshot.crossModel?.get(relation.key);
    // Removed with the SAAS: no relation of its need be dropped from it.
    const references = staying === 0 && facts ? { ...facts, references: { modelKey: snapshot.modelKey } } : facts;
    changes.push(...destroyRelationSide(relation, snapshot.applications ?? [], references, now));
  }
  if (staying > 0) {
    changes.push({ op: 'update', ref: refs.remoteApplication(saas.name), set: { life: 'dying' }, expect: { life: 'alive' } });
    return { changes, result: undefined };
  }
  changes.push({ op: 'remove', ref: refs.remoteApplication(saas.name), expect: { setSize: { relations: saas.relations.length } } });
  changes.push(...leaveOfferConsumers(saas, snapshot.modelKey, snapshot.offer));
  return { changes, result: undefined };
}

/** One side of a relation across models destroyed, with the other: Dying while units are in scope, removed otherwise. */
function destroyRelationSide(relation: Relation, applications: Application[], facts: CrossModelFacts | undefined, now: string): Change[] {
  const changes = destroyOtherSide(relation, facts, now);
  if (relation.unitCount === 0)
    return [...changes, ...removeRelation(relation, applications, now, { crossModel: facts?.references ?? { modelKey: '' } })];
  return [
    ...changes,
    { op: 'update', ref: refs.relation(relation.key), set: { life: 'dying' }, expect: { life: 'alive', atLeast: { unitCount: 1 } } },
  ];
}
