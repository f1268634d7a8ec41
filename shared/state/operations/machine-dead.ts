import { planEnsureMachineDead, type MachineDeadResult } from '../../domain/plans/machine-dead.js';
import { getMachine } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** The machine agent sets its Dying machine Dead. */
export async function ensureMachineDead(store: Store, id: string): Promise<MachineDeadResult> {
  return runOperation(store, `machine ${id} cannot advance lifecycle`, async (store) => {
    const machine = await getMachine(store, id);
    return planEnsureMachineDead(machine ? { machine } : {}, { id });
  });
}
