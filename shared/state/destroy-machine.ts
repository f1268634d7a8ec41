import { planDestroyMachine, type DestroyMachineResult } from '../domain/plans/destroy-machine.js';
import { getMachine } from './reads.js';
import { runOperation } from './run-operation.js';
import type { Store } from './store.js';

/** remove-machine: sets an Alive machine with no principal units Dying. */
export async function destroyMachine(store: Store, id: string): Promise<DestroyMachineResult> {
  return runOperation(store, `machine ${id} cannot advance lifecycle`, async () => {
    const machine = await getMachine(store, id);
    return planDestroyMachine(machine ? { machine } : {}, { id });
  });
}
