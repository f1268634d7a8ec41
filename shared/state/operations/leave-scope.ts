import type { Application, ScopeMember } from '../../domain/entities.js';
import { planLeaveScope, type LeaveScopeResult } from '../../domain/plans/leave-scope.js';
import { refs } from '../../domain/plan.js';
import { getItem, getMany, getRelation, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * The unit agent leaves a relation's scope. The last unit to leave a Dying relation removes it
 * (and, with it, a Dying counterpart application that nothing else holds). Leaving again is harmless.
 */
export async function leaveScope(store: Store, unit: string, relationKey: string): Promise<LeaveScopeResult> {
  return runOperation(store, `cannot leave scope of relation "${relationKey}" for unit "${unit}"`, async (store) => {
    const [u, relation, member] = await Promise.all([
      getUnit(store, unit),
      getRelation(store, relationKey),
      getItem<ScopeMember>(store, refs.scope(relationKey, unit)),
    ]);
    const names = [...new Set(relation?.endpoints.map((ep) => ep.application) ?? [])];
    const applications = await getMany<Application>(store, names.map(refs.application));
    return planLeaveScope(
      { inScope: member !== undefined, applications, ...(u ? { unit: u } : {}), ...(relation ? { relation } : {}) },
      unit,
      store.now().toISOString(),
    );
  });
}
