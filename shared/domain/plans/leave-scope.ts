// A unit agent leaves a relation's scope (its unit is Dying, or the relation is).
//
// lifecycles.txt: "When the last unit leaves the scope of a Dying relation, it must remove the
// relation from state", and "the Dying relation may be the only thing keeping a Dying service
// (different to that of the acting UA) from removal; so, relation removal may also imply service
// removal". death-and-destruction.txt: "The Dying relation's document is finally removed in the
// same transaction in which the last unit leaves its scope."
import type { Application, Relation, Unit } from '../entities.js';
import { done, refs, type Change, type EntityRef, type Plan } from '../plan.js';
import { removeRelation, type CrossModelReferences } from './references.js';

export interface LeaveScopeSnapshot {
  unit?: Unit;
  relation?: Relation;
  /** True when the unit's scope member exists. */
  inScope: boolean;
  /** Where it was found (the shard it entered); absent: where its relation's layout puts one now. */
  member?: EntityRef;
  /** The relation's applications (needed when leaving removes the relation). */
  applications: Application[];
  /** A relation across models: its SAAS or offer, released when leaving removes it. */
  crossModel?: CrossModelReferences;
}

export interface LeaveScopeResult {
  /** True when this unit was the last to leave a Dying relation, which is now removed. */
  removedRelation: boolean;
}

export function planLeaveScope(snapshot: LeaveScopeSnapshot, unitName: string, now: string): Plan<LeaveScopeResult> {
  const { relation, unit } = snapshot;
  // Leaving is idempotent: a unit not in scope, or a relation already gone, has nothing to do.
  if (!relation || !snapshot.inScope) return done({ removedRelation: false });

  const changes: Change[] = [{ op: 'remove', ref: snapshot.member ?? refs.scope(relation, unitName) }];
  // A unit is removed only after leaving all its scopes ("may not become Dead ... while the unit
  // is in scope for any relation"), so it is normally there; if not, there is no set to update.
  if (unit)
    changes.push({
      op: 'update',
      ref: refs.unit(unitName),
      removeFromSet: { scopes: [relation.key] },
      expect: { contains: { scopes: relation.key } },
    });

  if (relation.life !== 'alive' && relation.unitCount <= 1) {
    // removeRelation asserts the relation is still Dying with exactly this one unit in scope, and
    // releases both applications: the counterpart is removed if nothing else holds it.
    changes.push(
      ...removeRelation(relation, snapshot.applications, now, {
        unitsInScope: 1,
        ...(snapshot.crossModel ? { crossModel: snapshot.crossModel } : {}),
      }),
    );
    return { changes, result: { removedRelation: true } };
  }
  changes.push({
    op: 'update',
    ref: refs.relation(relation.key),
    add: { unitCount: -1 },
    // While Alive, concurrent leavers may decrement together. Once Dying, two units leaving
    // together must not both think the other is still in scope: each asserts that another unit
    // stays (at least two, itself included), so of the last two one is cancelled, and plans again
    // as the last to leave.
    expect: relation.life === 'alive' ? { life: 'alive' } : { life: relation.life, atLeast: { unitCount: 2 } },
  });
  return { changes, result: { removedRelation: false } };
}
