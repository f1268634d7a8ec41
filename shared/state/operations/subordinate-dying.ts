import type { Relation } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { planEnsureSubordinateDying, type SubordinateDyingResult } from '../../domain/plans/subordinate-dying.js';
import { getApplication, getMany, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * A subordinate's agent (or the 'dyingSubordinates' cleanup on its behalf) sets the subordinate
 * Dying once its principal is not Alive, or no Alive container-scoped relation joins its
 * application to its principal's; otherwise leaves it be.
 */
export async function ensureSubordinateDying(store: Store, name: string): Promise<SubordinateDyingResult> {
  return runOperation(store, `cannot destroy unit "${name}"`, async (store) => {
    const unit = await getUnit(store, name);
    if (!unit?.principal) return planEnsureSubordinateDying({ relations: [], ...(unit ? { unit } : {}) }, { name });
    const [principal, application] = await Promise.all([getUnit(store, unit.principal), getApplication(store, unit.application)]);
    const relations = application ? await getMany<Relation>(store, application.relations.map(refs.relation)) : [];
    return planEnsureSubordinateDying(
      { unit, relations, ...(principal ? { principal } : {}), ...(application ? { application } : {}) },
      { name },
    );
  });
}
