import { planRemoveUnit, type RemoveUnitResult } from '../../domain/plans/remove-unit.js';
import { getApplication, getMachine, getUnit, getUnitState } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * Removes a Dead unit (the machine agent for a principal, the principal's agent for a
 * subordinate), and its application too when that was the Dying application's last reference.
 */
export async function removeUnit(store: Store, name: string): Promise<RemoveUnitResult> {
  return runOperation(store, `cannot remove unit "${name}"`, async (store) => {
    const unit = await getUnit(store, name);
    if (!unit) return planRemoveUnit({}, { name, now: store.now().toISOString() });
    const [application, machine, principal, state] = await Promise.all([
      getApplication(store, unit.application),
      unit.principal === undefined && unit.machine !== undefined ? getMachine(store, unit.machine) : undefined,
      unit.principal !== undefined ? getUnit(store, unit.principal) : undefined,
      getUnitState(store, name),
    ]);
    return planRemoveUnit(
      {
        unit,
        ...(application ? { application } : {}),
        ...(machine ? { machine } : {}),
        ...(principal ? { principal } : {}),
        hasState: state !== undefined,
      },
      { name, now: store.now().toISOString() },
    );
  });
}
