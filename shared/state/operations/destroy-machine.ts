import { planDestroyMachine, type DestroyMachineResult } from '../../domain/plans/destroy-machine.js';
import { getMachine } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** remove-machine: sets an Alive machine with no principal units Dying. */
export async function destroyMachine(store: Store, id: string): Promise<DestroyMachineResult> {
  return runOperation(store, `machine ${id} cannot advance lifecycle`, async (store) => {
    const machine = await getMachine(store, id);
    return planDestroyMachine(machine ? { machine } : {}, { id });
  });
}
