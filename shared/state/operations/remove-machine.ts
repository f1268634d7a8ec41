import { planRemoveMachine } from '../../domain/plans/remove-machine.js';
import { getMachine } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** Removes a Dead machine (the provisioner, after releasing its instance). */
export async function removeMachine(store: Store, id: string): Promise<{ removed: boolean }> {
  return runOperation(store, `cannot remove machine ${id}`, async (store) => {
    const machine = await getMachine(store, id);
    return planRemoveMachine(machine ? { machine } : {}, { id });
  });
}
