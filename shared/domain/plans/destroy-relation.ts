// remove-relation (destroy-relation), by endpoints or by id.
//
// death-and-destruction.txt, "juju destroy-relation": "If the relation is not Alive, abort
// without error. If any unit is in scope, set the relation to Dying. Otherwise: ... decrement the
// relation counts of both services ... Delete the relation document. Mark the relation's unit
// settings documents for future cleanup."
import type { Application, Relation } from '../entities.js';
import { invalidArgument, notFound } from '../errors.js';
import { done, refs, type Change, type Plan } from '../plan.js';
import { parseEndpointArg } from '../relation-endpoints.js';
import { scheduleCleanup } from './cleanups.js';
import { removeRelation } from './references.js';
import { destroyOtherSide, type CrossModelFacts } from './cross-model-relation.js';

export type RelationTarget = string[] | number;

export interface DestroyRelationSnapshot {
  /** The relations the target could name: those of the named applications, or the one with the id. */
  candidates: Relation[];
  /** The applications of the candidates. */
  applications: Application[];
  /** For candidates across models, by key: both sides' facts (cross-model-relation.ts). */
  crossModel?: Map<string, CrossModelFacts>;
}

export interface DestroyRelationResult {
  key: string;
  id: number;
  /** What happened: removed at once, set Dying, or nothing (already Dying). */
  outcome: 'removed' | 'dying' | 'unchanged';
}

export function planDestroyRelation(snapshot: DestroyRelationSnapshot, target: RelationTarget, now: string): Plan<DestroyRelationResult> {
  const relation = findRelation(snapshot.candidates, target);
  const { key, id } = relation;
  // Peer relations are created with the application and die with it (Juju's
  // https://github.com/juju/juju/blob/2.9/state/relation_test.go).
  if (relation.endpoints.length === 1) throw invalidArgument(`cannot destroy relation "${key}": is a peer relation`);
  if (relation.life !== 'alive') return done({ key, id, outcome: 'unchanged' });

  const changes: Change[] = [];
  // lifecycles.txt: a subordinate "must also become Dying when ... the last Alive relation between
  // its service and its principal's service is no longer Alive. This may come about via `juju
  // destroy-relation`." Which subordinates that is depends on their other relations, so a cleanup
  // works it out (and finds nothing to do if another container relation is still Alive).
  const subordinate = subordinateOf(relation, snapshot.applications);
  if (subordinate) changes.push(scheduleCleanup('dyingSubordinates', subordinate, now, { incarnation: String(id) }));

  // "When a relation is destroyed with no units in scope, it will immediately become Dead and be
  // removed from state, rather than being set to Dying."
  // A relation across models: the other model's record is destroyed with this one.
  const crossModel = snapshot.crossModel?.get(key);
  changes.push(...destroyOtherSide(relation, crossModel, now));
  if (relation.unitCount === 0) {
    changes.push(...removeRelation(relation, snapshot.applications, now, crossModel ? { crossModel: crossModel.references } : {}));
    return { changes, result: { key, id, outcome: 'removed' } };
  }
  changes.push({
    op: 'update',
    ref: refs.relation(key),
    set: { life: 'dying' },
    // Units in scope make it Dying rather than removed: that holds while any is in scope, so a unit
    // entering or leaving meanwhile does not cancel this; the last one leaving does (plan again).
    expect: { life: 'alive', atLeast: { unitCount: 1 } },
  });
  return { changes, result: { key, id, outcome: 'dying' } };
}

/** The subordinate application of a container-scoped relation between a principal and a subordinate. */
export function subordinateOf(relation: Relation, applications: Application[]): string | undefined {
  if (relation.scope !== 'container') return undefined;
  const apps = relation.endpoints.map((ep) => applications.find((a) => a.name === ep.application));
  const subordinates = apps.filter((a) => a?.subordinate);
  // Two subordinates in one container relation share a principal; neither is created by the other.
  return subordinates.length === 1 ? subordinates[0]?.name : undefined;
}

function findRelation(candidates: Relation[], target: RelationTarget): Relation {
  if (typeof target === 'number') {
    const found = candidates.find((r) => r.id === target);
    if (!found) throw notFound(`relation ${target} not found`);
    return found;
  }
  if (target.length !== 1 && target.length !== 2) throw invalidArgument('a relation must involve one or two applications');
  const wanted = target.map(parseEndpointArg);
  const matches = candidates.filter(
    (r) =>
      r.endpoints.length === wanted.length &&
      // Each argument names a different endpoint of the relation (application, and name if given).
      wanted.every((w, i) => {
        const ep = r.endpoints.find((e) => e.application === w.application && (w.endpoint === undefined || e.name === w.endpoint));
        return ep !== undefined && wanted.findIndex((o) => o.application === w.application) === i;
      }),
  );
  const label = target.join(' ');
  if (matches.length === 0) throw notFound(`relation "${label}" not found`);
  if (matches.length === 1) return matches[0]!;
  // As in inference: an explicit interface wins over the implicit juju-info.
  const explicit = matches.filter((r) => !r.endpoints.some((e) => e.name === 'juju-info' && e.role === 'provider'));
  if (explicit.length === 1) return explicit[0]!;
  throw invalidArgument(`ambiguous relation: "${label}" could refer to ${matches.map((r) => `"${r.key}"`).join('; ')}`);
}
