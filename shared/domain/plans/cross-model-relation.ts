// integrate <application> <saas> (either order): a relation across two models of the controller.
//
// As Juju 3.6 does, each model has its own relation: the consuming model's between its
// application and the SAAS (`testapp:db dbalias:db`), the offering model's between the offered
// application and a remote application standing for the consumer, named `remote-<hex>`
// (https://github.com/juju/juju/blob/3.6/apiserver/facades/controller/crossmodelrelations/crossmodelrelations.go,
// registerRemoteRelation), with an offer connection that holds the offer. Where Juju keeps the
// two in step with workers exchanging changes, drover makes both records in one transaction (all
// models are in one table) and has each name the other (Relation.crossModel), so a unit's agent
// reads the other side's units and bags straight from the other model's record.
import { createHash } from 'node:crypto';
import { charmEndpoints, type Endpoint } from '../charm.js';
import { crossModelKey, type Offer, type RemoteApplication } from '../cross-model.js';
import type { Application, CrossModelSide, Model, Relation } from '../entities.js';
import { alreadyExists, DroverError, notAlive, notFound } from '../errors.js';
import { refs, inModel, type Change, type Expect, type Plan } from '../plan.js';
import { inferRelation, relationKey, relationScope, type AppEndpoints, type RelationEndpoint } from '../relation-endpoints.js';
import { FIRST_SHARDS } from '../shards.js';
import type { AddRelationResult } from './add-relation.js';
import { removeRelation, type CrossModelReferences } from './references.js';

/**
 * The name the offering model gives a consuming application: Juju's `remote-` and the hex of a
 * token of that application. Derived from the consuming model's key and the application's name, so
 * every retry, and every relation of that application with the same offering model, names it alike.
 */
export function consumerProxyName(consumerModelKey: string, application: string): string {
  return `remote-${createHash('sha256').update(`${consumerModelKey}/${application}`).digest('hex').slice(0, 32)}`;
}

export interface CrossModelRelationSnapshot {
  /** The consuming model (where integrate runs). */
  model: Model;
  modelKey: string;
  /** The local application the arguments name, and every relation it is in (of any life). */
  application: Application;
  relations: Relation[];
  saas: RemoteApplication;
  /** The offering model's item, its offer and offered application, and that application's relations. */
  offerModel?: Model;
  offer?: Offer;
  offered?: Application;
  offeredRelations: Relation[];
  /** The ids the two relation records get: from the consuming model's sequence and the offering one's. */
  ids: () => { consumer: number; offerer: number };
}

const saasEndpoints = (saas: RemoteApplication): AppEndpoints => ({
  application: saas.name,
  series: '',
  subordinate: false,
  endpoints: saas.endpoints.map((ep): Endpoint => ({ ...ep, scope: 'global', required: false })),
});

const usesEndpoint = (r: Relation, ep: RelationEndpoint) => r.endpoints.some((e) => e.application === ep.application && e.name === ep.name);

function checkLimit(cannot: string, ep: RelationEndpoint, app: Application, relations: Relation[]) {
  if (ep.limit === undefined) return;
  const established = relations.filter((r) => app.relations.includes(r.key) && usesEndpoint(r, ep)).length;
  if (established + 1 > ep.limit)
    throw new DroverError(
      'quota-exceeded',
      `${cannot}: establishing a new relation for ${ep.application}:${ep.name} would exceed its maximum relation limit of ${ep.limit}`,
    );
}

/** The application's side of a new relation: referenced, asserting what the decision read. */
function joinApplication(app: Application, key: string): Change {
  const expect: Expect = { life: 'alive', lacks: { relations: key }, equals: { charmUrl: app.charmUrl } };
  return { op: 'update', ref: refs.application(app.name), addToSet: { relations: [key] }, expect };
}

export function planCrossModelRelation(snapshot: CrossModelRelationSnapshot, args: string[], now: string): Plan<AddRelationResult> {
  const { application: app, saas } = snapshot;
  const lookup = (name: string) =>
    name === app.name
      ? { application: app.name, series: app.series, subordinate: app.subordinate, endpoints: charmEndpoints(app.charm) }
      : name === saas.name
        ? saasEndpoints(saas)
        : undefined;
  const endpoints = inferRelation(args, lookup);
  const key = relationKey(endpoints);
  const cannot = `cannot add relation "${key}"`;
  if (snapshot.model.life !== 'alive') throw notAlive(`${cannot}: model "${snapshot.model.name}" is ${snapshot.model.life}`);
  if (relationScope(endpoints) === 'container') throw new DroverError('invalid-argument', `${cannot}: a relation across models is global`);
  const existing = snapshot.relations.find((r) => r.key === key);
  if (existing) {
    if (existing.life !== 'alive') throw alreadyExists(`${cannot}: relation ${key} is dying, but not yet removed`);
    throw alreadyExists(`${cannot}: relation ${key}`);
  }
  if (app.life !== 'alive') throw notAlive(`${cannot}: application "${app.name}" is not alive`);
  if (saas.life !== 'alive') throw notAlive(`${cannot}: remote application "${saas.name}" is not alive`);
  const { offer, offered, offerModel } = snapshot;
  // Juju's words when the offer a SAAS consumes has gone (status shows it `terminated`).
  if (!offer || !offered || !offerModel) throw notFound(`${cannot}: application offer "${saas.url}" not found`);
  if (offerModel.life !== 'alive') throw notAlive(`${cannot}: model "${offerModel.name}" is ${offerModel.life}`);
  if (offered.life !== 'alive') throw notAlive(`${cannot}: application "${saas.url}" is not alive`);

  const local = endpoints.find((ep) => ep.application === app.name)!;
  const remote = endpoints.find((ep) => ep.application === saas.name)!;
  const offeredEndpoint = charmEndpoints(offered.charm).find(
    (ep) => ep.name === remote.name && offer.endpoints.some((o) => o.name === ep.name),
  );
  if (!offeredEndpoint) throw notFound(`${cannot}: application offer "${saas.url}" has no "${remote.name}" endpoint`);
  checkLimit(cannot, local, app, snapshot.relations);
  const proxy = consumerProxyName(snapshot.modelKey, app.name);
  // The offering model's relation: the offered application's endpoint and the consumer's, named by its proxy.
  const offeringEndpoints: RelationEndpoint[] = [
    { application: offered.name, ...offeredEndpoint },
    { ...local, application: proxy, required: false },
  ];
  const offeringKey = relationKey(offeringEndpoints);
  const offeringCannot = `cannot add relation "${offeringKey}"`;
  const mirror = snapshot.offeredRelations.find((r) => r.key === offeringKey);
  if (mirror) throw alreadyExists(`${offeringCannot}: relation ${offeringKey}`);
  checkLimit(offeringCannot, offeringEndpoints[0]!, offered, snapshot.offeredRelations);

  const ids = snapshot.ids();
  const consuming: Relation = {
    key,
    id: ids.consumer,
    life: 'alive',
    endpoints,
    scope: 'global',
    unitCount: 0,
    scopeShards: FIRST_SHARDS,
    crossModel: sideOf(saas.name, saas.offerModelKey, offeringKey, ids.offerer, offered.name, offer.name, false),
    createdAt: now,
  };
  const offering: Relation = {
    key: offeringKey,
    id: ids.offerer,
    life: 'alive',
    endpoints: offeringEndpoints,
    scope: 'global',
    unitCount: 0,
    scopeShards: FIRST_SHARDS,
    crossModel: sideOf(proxy, snapshot.modelKey, key, ids.consumer, app.name, offer.name, true),
    createdAt: now,
  };
  const changes: Change[] = [
    { op: 'create', ref: refs.relation(key), value: { ...consuming } },
    joinApplication(app, key),
    {
      op: 'update',
      ref: refs.remoteApplication(saas.name),
      addToSet: { relations: [key] },
      expect: { life: 'alive', lacks: { relations: key }, equals: { url: saas.url } },
    },
    { op: 'check', ref: refs.model(), expect: { life: 'alive' } },
    ...inModel(saas.offerModelKey, [
      { op: 'create', ref: refs.relation(offeringKey), value: { ...offering } },
      joinApplication(offered, offeringKey),
      { op: 'check', ref: refs.model(), expect: { life: 'alive' } },
    ]),
    // The offer as read (its application), still consumed by this SAAS: one removed, replaced or
    // left meanwhile re-plans. The connection holds the offer (remove-offer needs --force).
    {
      op: 'update',
      ref: refs.offer(saas.offerModelKey, offer.name),
      addToSet: { connections: [crossModelKey(snapshot.modelKey, key)] },
      expect: {
        equals: { application: offer.application, createdAt: offer.createdAt },
        contains: { consumers: crossModelKey(snapshot.modelKey, saas.name) },
      },
    },
  ];
  return { changes, result: { key, id: consuming.id, pending: [] } };
}

function sideOf(
  alias: string,
  model: string,
  relation: string,
  relationId: number,
  application: string,
  offer: string,
  offering: boolean,
): CrossModelSide {
  return { alias, model, relation, relationId, application, offer, offering };
}

/** What destroying or removing one model's record of a relation across models needs (read by cross-model-reads.ts). */
export interface CrossModelFacts {
  /** This record's own references (its SAAS or offer). */
  references: CrossModelReferences;
  /** The other model's record (absent: removed), its application there, and its references. */
  other?: { relation?: Relation; applications: Application[]; references: CrossModelReferences };
}

/**
 * Destroying one side of a relation across models (remove-relation, remove-application,
 * remove-saas, remove-offer --force, destroy-model, from either model) destroys the other in the
 * same transaction, by the same rule as any relation: Dying while a unit is in its scope (the
 * last to leave removes it), removed at once otherwise.
 */
export function destroyOtherSide(relation: Relation, facts: CrossModelFacts | undefined, now: string): Change[] {
  const side = relation.crossModel;
  const other = facts?.other?.relation;
  if (!side || !other || other.life !== 'alive') return [];
  const changes: Change[] =
    other.unitCount === 0
      ? removeRelation(other, facts!.other!.applications, now, { crossModel: facts!.other!.references })
      : [{ op: 'update', ref: refs.relation(other.key), set: { life: 'dying' }, expect: { life: 'alive', atLeast: { unitCount: 1 } } }];
  return inModel(side.model, changes);
}
