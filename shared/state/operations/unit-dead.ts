import { planEnsureUnitDead, type UnitDeadResult } from '../../domain/plans/unit-dead.js';
import { getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** The unit agent sets its unit Dead, once it has left every relation scope and lost every subordinate. */
export async function ensureUnitDead(store: Store, name: string): Promise<UnitDeadResult> {
  return runOperation(store, `cannot set unit "${name}" to dead`, async (store) => {
    const unit = await getUnit(store, name);
    return planEnsureUnitDead(unit ? { unit } : {});
  });
}
