import type { Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { AGENT_NOT_STARTED, planDestroyUnit, type DestroyUnitIntent, type DestroyUnitResult } from '../../domain/plans/destroy-unit.js';
import { getApplication, getMachine, getMany, getUnit } from '../engine/reads.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

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
  const attempt: Attempt<DestroyUnitResult> = async (store) => {
    const unit = await getUnit(store, intent.name);
    if (!unit) return planDestroyUnit({ subordinates: [] }, intent);
    // Only the short-cut (remove-unit of an Alive unit whose agent never started) uses the
    // application and the machine: a started unit, the usual case, is planned from its own item.
    const mayShortCut = intent.by === 'user' && unit.life === 'alive' && unit.agentStatus.current === AGENT_NOT_STARTED;
    const [application, machine, subordinates] = await Promise.all([
      mayShortCut ? getApplication(store, unit.application) : undefined,
      mayShortCut && unit.machine !== undefined ? getMachine(store, unit.machine) : undefined,
      getMany<Unit>(store, unit.subordinates.map(refs.unit)),
    ]);
    return planDestroyUnit({ unit, subordinates, ...(application ? { application } : {}), ...(machine ? { machine } : {}) }, intent);
  };
  return runOperation(store, `cannot destroy unit "${intent.name}"`, attempt, { speculate: true });
}
