import type { Application } from '../../domain/entities.js';
import { planLeaveScope, type LeaveScopeResult } from '../../domain/plans/leave-scope.js';
import { refs } from '../../domain/plan.js';
import { getEach, getRelation, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * The unit agent leaves a relation's scope. The last unit to leave a Dying relation removes it
 * (and, with it, a Dying counterpart application that nothing else holds). Leaving again is harmless.
 */
export async function leaveScope(store: Store, unit: string, relationKey: string): Promise<LeaveScopeResult> {
  return runOperation(store, `cannot leave scope of relation "${relationKey}" for unit "${unit}"`, async (store) => {
    const [u, relation] = await Promise.all([getUnit(store, unit), getRelation(store, relationKey)]);
    // Gone: it is removed only with an empty scope, so there is nothing to leave.
    if (!relation) return planLeaveScope({ inScope: false, applications: [] }, unit, store.now().toISOString());
    // The member's key needs the relation's layout: read with the relation's applications.
    const names = [...new Set(relation.endpoints.map((ep) => ep.application))];
    const [member, ...applications] = await getEach<unknown>(store, [refs.scope(relation, unit), ...names.map(refs.application)]);
    return planLeaveScope(
      {
        inScope: member !== undefined,
        applications: applications.filter((a): a is Application => a !== undefined),
        ...(u ? { unit: u } : {}),
        relation,
      },
      unit,
      store.now().toISOString(),
    );
  });
}
