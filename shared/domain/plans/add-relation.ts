// relate (add-relation): a new Alive relation between two Alive applications.
//
// lifecycles.txt: "No two relations with the same canonical name can exist", and "a relation
// cannot be created while an identical relation exists in state"; death-and-destruction.txt: a
// user "may not create ... new relations identical to the destroyed ones, until those entities
// have finally been removed". "When a service is Alive ... relations can be added using the
// service's endpoints."
import { charmEndpoints } from '../charm.js';
import type { Application, Model, Relation } from '../entities.js';
import { alreadyExists, DroverError, notAlive } from '../errors.js';
import { refs, type Change, type Expect, type Plan } from '../plan.js';
import { inferRelation, relationKey, relationScope, type AppEndpoints, type RelationEndpoint } from '../relation-endpoints.js';
import { describePending, pendingRequirements } from '../required-relations.js';
import { sequenceNames, type Numbers } from '../sequences.js';
import { scheduleCleanup } from './cleanups.js';
import { FIRST_SHARDS } from '../shards.js';

export interface AddRelationSnapshot {
  /** Nothing new in a model being destroyed (shared/domain/plans/destroy-model.ts). */
  model: Model;
  /** The applications named by the arguments that exist. */
  applications: Application[];
  /** Every relation those applications are in (their `relations` sets), of any life. */
  relations: Relation[];
  /** Where the relation's id comes from. */
  numbers: Numbers;
}

export interface AddRelationResult {
  key: string;
  id: number;
  /** For each application of the relation still held back by required relations, why. */
  pending: string[];
}

const appEndpoints = (app: Application): AppEndpoints => ({
  application: app.name,
  series: app.series,
  subordinate: app.subordinate,
  endpoints: charmEndpoints(app.charm),
});

/** Relations an application is in, of any life: Juju counts Dying ones against a limit too. */
const relationsOf = (app: Application, relations: Relation[]) => relations.filter((r) => app.relations.includes(r.key));

const usesEndpoint = (r: Relation, ep: RelationEndpoint) => r.endpoints.some((e) => e.application === ep.application && e.name === ep.name);

export function planAddRelation(snapshot: AddRelationSnapshot, args: string[], now: string): Plan<AddRelationResult> {
  const byName = new Map(snapshot.applications.map((a) => [a.name, a]));
  const lookup = (name: string) => {
    const app = byName.get(name);
    return app ? appEndpoints(app) : undefined;
  };
  const endpoints = inferRelation(args, lookup);
  const key = relationKey(endpoints);
  const cannot = `cannot add relation "${key}"`;
  if (snapshot.model.life !== 'alive') throw notAlive(`${cannot}: model "${snapshot.model.name}" is ${snapshot.model.life}`);

  // "All relations reference the services they are part of": an identical relation, Alive or
  // Dying, is in the applications' relation sets.
  const existing = snapshot.relations.find((r) => r.key === key);
  if (existing) {
    if (existing.life !== 'alive') throw alreadyExists(`${cannot}: relation ${key} is dying, but not yet removed`);
    throw alreadyExists(`${cannot}: relation ${key}`);
  }

  const apps = [...new Set(endpoints.map((ep) => ep.application))].map((name) => byName.get(name) as Application);
  for (const app of apps) {
    if (app.life !== 'alive') throw notAlive(`${cannot}: application "${app.name}" is not alive`);
  }
  for (const ep of endpoints) {
    if (ep.limit === undefined) continue;
    const app = byName.get(ep.application) as Application;
    const established = relationsOf(app, snapshot.relations).filter((r) => usesEndpoint(r, ep)).length;
    if (established + 1 > ep.limit) {
      throw new DroverError(
        'quota-exceeded',
        `${cannot}: establishing a new relation for ${ep.application}:${ep.name} would exceed its maximum relation limit of ${ep.limit}`,
      );
    }
  }

  const [id] = snapshot.numbers.take(sequenceNames.relation, 1);
  const relation: Relation = {
    key,
    id: id!,
    life: 'alive',
    endpoints,
    scope: relationScope(endpoints),
    unitCount: 0,
    // Its scope starts in one partition and spreads as it grows (shared/domain/shards.ts).
    scopeShards: FIRST_SHARDS,
    createdAt: now,
  };
  const changes: Change[] = [{ op: 'create', ref: refs.relation(key), value: { ...relation } }];
  const pending: string[] = [];
  for (const app of apps) {
    const current = relationsOf(app, snapshot.relations);
    const before = pendingRequirements(app, current);
    const after = pendingRequirements(app, [...current, relation]);
    const limited = endpoints.some((ep) => ep.application === app.name && ep.limit !== undefined);
    // A limit and the pending required relations are both read from the relation set: asserting
    // its size makes a concurrent relate (or remove-relation) on this application re-plan.
    // The endpoints were read from the charm: a concurrent upgrade-charm (which may drop one) re-plans.
    const expect: Expect = { life: 'alive', lacks: { relations: key }, equals: { charmUrl: app.charmUrl } };
    if (limited || before.length > 0) expect.setSize = { relations: app.relations.length };
    changes.push({ op: 'update', ref: refs.application(app.name), addToSet: { relations: [key] }, expect });
    // required-relations-proposal.txt: the charm "will not be deployed until such time as those
    // relationships have been satisfied" — this relation satisfies the last of them, so the
    // cleanup runner now assigns the units that were waiting.
    if (before.length > 0 && after.length === 0) {
      changes.push(scheduleCleanup('assignUnits', app.name, now, { incarnation: String(relation.id) }));
    }
    if (after.length > 0) pending.push(describePending(app.name, after));
  }
  changes.push({ op: 'check', ref: refs.model(), expect: { life: 'alive' } });
  return { changes, result: { key, id: relation.id, pending } };
}
