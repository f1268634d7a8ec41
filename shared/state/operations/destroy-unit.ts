import type { Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { AGENT_NOT_STARTED, planDestroyUnit, type DestroyUnitIntent, type DestroyUnitResult } from '../../domain/plans/destroy-unit.js';
import { getApplication, getMachine, getMany, getUnit } from '../engine/reads.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { readUnitStorage } from '../queries/unit-storage.js';

/**
 * remove-unit: sets an Alive principal Dying (and its Alive subordinates with it), or removes it
 * at once when its agent never started. A unit that is not Alive is left as it is.
 * `destroyStorage`: remove-unit --destroy-storage.
 */
export async function destroyUnit(store: Store, name: string, options: { destroyStorage?: boolean } = {}): Promise<DestroyUnitResult> {
  return destroy(store, { name, by: 'user', ...(options.destroyStorage ? { destroyStorage: true } : {}) });
}

/**
 * The unit agent's own move to Dying: when it sees its application Dying, or (a subordinate)
 * its principal Dying. Allowed on subordinates; never removes the unit.
 */
export async function destroyUnitByAgent(store: Store, name: string): Promise<DestroyUnitResult> {
  return destroy(store, { name, by: 'agent' });
}

async function destroy(store: Store, intent: DestroyUnitIntent): Promise<DestroyUnitResult> {
  const attempt: Attempt<DestroyUnitResult> = async (store) => {
    const unit = await getUnit(store, intent.name);
    if (!unit) return planDestroyUnit({ subordinates: [] }, intent);
    // Only the short-cut (remove-unit of an Alive unit whose agent never started) uses the
    // application and the machine: a started unit, the usual case, is planned from its own item.
    // A unit with storage reads its application too: remove-application --destroy-storage said
    // what becomes of its units' storage.
    const mayShortCut = intent.by === 'user' && unit.life === 'alive' && unit.agentStatus.current === AGENT_NOT_STARTED;
    const hasStorage = (unit.storageAttachments ?? []).length > 0 && unit.life === 'alive';
    const [application, machine, subordinates, storage] = await Promise.all([
      mayShortCut || hasStorage ? getApplication(store, unit.application) : undefined,
      mayShortCut && unit.machine !== undefined ? getMachine(store, unit.machine) : undefined,
      getMany<Unit>(store, unit.subordinates.map(refs.unit)),
      hasStorage ? readUnitStorage(store, unit) : undefined,
    ]);
    const destroyStorage = intent.destroyStorage === true || application?.destroyStorage === true;
    return planDestroyUnit(
      {
        unit,
        subordinates,
        ...(application && mayShortCut ? { application } : {}),
        ...(machine ? { machine } : {}),
        ...(storage ? { storage } : {}),
      },
      { ...intent, ...(destroyStorage ? { destroyStorage: true } : {}) },
    );
  };
  return runOperation(store, `cannot destroy unit "${intent.name}"`, attempt, { speculate: true });
}
