import type { Unit } from '../domain/entities.js';
import { refs } from '../domain/plan.js';
import { planDestroyUnit, type DestroyUnitIntent, type DestroyUnitResult } from '../domain/plans/destroy-unit.js';
import { getApplication, getMachine, getMany, getUnit } from './reads.js';
import { runOperation } from './run-operation.js';
import type { Store } from './store.js';

/**
 * remove-unit: sets an Alive principal Dying (and its Alive subordinates with it), or removes it
 * at once when its agent never started. A unit that is not Alive is left as it is.
 */
export async function destroyUnit(store: Store, name: string): Promise<DestroyUnitResult> {
  return destroy(store, { name, by: 'user' });
}

/**
 * The unit agent's own move to Dying: when it sees its application Dying, or (a subordinate)
 * its principal Dying. Allowed on subordinates; never removes the unit.
 */
export async function destroyUnitByAgent(store: Store, name: string): Promise<DestroyUnitResult> {
  return destroy(store, { name, by: 'agent' });
}

async function destroy(store: Store, intent: DestroyUnitIntent): Promise<DestroyUnitResult> {
  return runOperation(store, `cannot destroy unit "${intent.name}"`, async () => {
    const unit = await getUnit(store, intent.name);
    if (!unit) return planDestroyUnit({ subordinates: [] }, intent);
    const [application, machine, subordinates] = await Promise.all([
      getApplication(store, unit.application),
      unit.machine !== undefined ? getMachine(store, unit.machine) : undefined,
      getMany<Unit>(store, unit.subordinates.map(refs.unit)),
    ]);
    return planDestroyUnit({ unit, subordinates, ...(application ? { application } : {}), ...(machine ? { machine } : {}) }, intent);
  });
}
