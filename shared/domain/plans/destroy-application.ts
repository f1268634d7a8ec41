// remove-application (destroy-service).
//
// death-and-destruction.txt, "juju destroy-service": "If the service is not Alive, abort without
// error. If the service is in any relations, do the following for each one: If the relation is
// already Dying, skip it. If the relation is Alive, destroy the relation without modifying the
// service's relation count. If the relation's destruction implies its removal, increment a local
// removed-relations counter instead. If the service's unit count is greater than 0, or if the
// value of the aforementioned removal counter is less than the service's relation count, ... set
// the service to Dying and decrement its relation count by the value of the removal counter.
// Otherwise, remove the service immediately".
//
// Two bounds the document does not have to care about (mgo/txn had neither):
// - A DynamoDB transaction touches each item once, so two relations released towards the same
//   counterpart application cannot share a transaction; and no transaction may grow with the
//   number of relations. When either would happen, a transaction first destroys a batch of the
//   relations while the application stays Alive (exactly as remove-relation would), and the
//   operation plans again; the last transaction is the document's, whole.
// - "the UAs for each unit of a service set their corresponding units to Dying ... we can't use
//   mgo/txn to do a bulk update of 100k units": the units are never touched here; a 'units'
//   cleanup, written in the same transaction, destroys them in batches.
import type { Application, Relation } from '../entities.js';
import { DroverError, notFound } from '../errors.js';
import { refs, type Change, type Expect, type Plan } from '../plan.js';
import { scheduleCleanup } from './cleanups.js';
import { ownerSecretsCleanup, removeRelation } from './references.js';
import { destroyOtherSide, type CrossModelFacts } from './cross-model-relation.js';

/** Relations handled per transaction: at most 4 changes each, plus 2 for the application. */
export const RELATIONS_PER_TRANSACTION = 5;

/** `shedding-relations`: a batch of relations was destroyed; plan again to finish. */
export type DestroyApplicationResult = 'removed' | 'dying' | 'already-dying' | 'shedding-relations';

export interface DestroyApplicationSnapshot {
  application?: Application;
  /** The relations named in `application.relations` that exist. */
  relations: Relation[];
  /** The other applications in those relations. */
  counterparts: Application[];
  /** For relations across models, by key: both sides' facts (cross-model-relation.ts). */
  crossModel?: Map<string, CrossModelFacts>;
}

const otherApplications = (relation: Relation, name: string) =>
  [...new Set(relation.endpoints.map((ep) => ep.application))].filter((a) => a !== name);

export function planDestroyApplication(
  snapshot: DestroyApplicationSnapshot,
  /** `destroyStorage`: remove-application --destroy-storage; its units' persistent storage is destroyed, not kept. */
  intent: { name: string; destroyStorage?: boolean },
  now: string,
): Plan<DestroyApplicationResult> {
  const { application: app } = snapshot;
  const { name } = intent;
  if (!app) throw notFound(`application "${name}" not found`);
  if (app.life !== 'alive') return { changes: [], result: 'already-dying' };
  // Juju refuses while an offer names the application (state/application.go, "application is used
  // by N offers"): its consumers would lose what they relate to. The offers' count is asserted below.
  const offers = app.offers ?? [];
  if (offers.length > 0)
    throw new DroverError(
      'not-alive',
      `cannot destroy application "${name}": application is used by ${offers.length} offer${offers.length === 1 ? '' : 's'}`,
    );

  const byKey = new Map(snapshot.relations.map((r) => [r.key, r]));
  // A key without a relation would hold the application forever; nothing references it, so it
  // counts as removed.
  const removedKeys = app.relations.filter((k) => !byKey.has(k));
  const alive = app.relations.map((k) => byKey.get(k)).filter((r): r is Relation => r?.life === 'alive');

  const batch: Relation[] = [];
  const releasedCounterparts = new Set<string>();
  let deferred = false;
  for (const relation of alive) {
    if (batch.length === RELATIONS_PER_TRANSACTION) {
      deferred = true;
      break;
    }
    const releases = relation.unitCount === 0 ? otherApplications(relation, name) : [];
    if (releases.some((a) => releasedCounterparts.has(a))) {
      deferred = true;
      continue;
    }
    releases.forEach((a) => releasedCounterparts.add(a));
    batch.push(relation);
  }

  const changes: Change[] = [];
  for (const relation of batch) {
    // A relation across models: the other model's record is destroyed with this one.
    const crossModel = snapshot.crossModel?.get(relation.key);
    changes.push(...destroyOtherSide(relation, crossModel, now));
    if (relation.unitCount === 0) {
      // "When a relation is destroyed with no units in scope, it will immediately become Dead and
      // be removed"; only the counterpart is released, "because the service destruction logic is
      // responsible for the relation count of the service being destroyed".
      changes.push(
        ...removeRelation(relation, snapshot.counterparts, now, {
          skip: name,
          ...(crossModel ? { crossModel: crossModel.references } : {}),
        }),
      );
      removedKeys.push(relation.key);
    } else {
      // Units in scope: Dying; the last of them to leave scope removes it. That holds while any
      // unit is in scope, whoever enters or leaves meanwhile.
      changes.push({
        op: 'update',
        ref: refs.relation(relation.key),
        set: { life: 'dying' },
        expect: { life: 'alive', atLeast: { unitCount: 1 } },
      });
    }
    // "If the relation has container scope, and no other container-scoped relation between its
    // services is Alive, the unit agents of the subordinate units in the relation will observe the
    // change and destroy their units": the cleanup makes sure they do.
    if (relation.scope === 'container') {
      for (const other of otherApplications(relation, name)) {
        if (snapshot.counterparts.find((a) => a.name === other)?.subordinate) {
          changes.push(scheduleCleanup('dyingSubordinates', other, now, { incarnation: String(relation.id) }));
        }
      }
    }
  }

  const dropKeys = removedKeys.length ? { removeFromSet: { relations: removedKeys } } : {};
  if (deferred) {
    // The application stays Alive; its own relation count drops by the relations removed.
    changes.push(
      removedKeys.length
        ? { op: 'update', ref: refs.application(name), ...dropKeys, expect: { life: 'alive' } }
        : { op: 'check', ref: refs.application(name), expect: { life: 'alive' } },
    );
    return { changes, result: 'shedding-relations' };
  }

  // With units, the cleanup destroys them all, however many there are by then: the decision rests
  // on there being at least one. Without, on there being none.
  const units: Expect = app.unitCount > 0 ? { atLeast: { unitCount: 1 } } : { equals: { unitCount: 0 } };
  const expect: Expect = { life: 'alive', ...units, setSize: { relations: app.relations.length, offers: 0 } };
  if (app.unitCount > 0 || removedKeys.length < app.relations.length) {
    // "some entity will still hold a reference to the service after the transaction completes".
    const set = { life: 'dying', ...(intent.destroyStorage ? { destroyStorage: true } : {}) };
    changes.push({ op: 'update', ref: refs.application(name), set, ...dropKeys, expect });
    if (app.unitCount > 0) changes.push(scheduleCleanup('units', name, now, { incarnation: app.createdAt }));
    return { changes, result: 'dying' };
  }
  // "no reference to the service will survive the transaction".
  changes.push({ op: 'remove', ref: refs.application(name), expect }, ...ownerSecretsCleanup(app, now));
  return { changes, result: 'removed' };
}
