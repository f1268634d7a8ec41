// remove-machine (destroy-machine): the user asks for a machine to go away.
//
// death-and-destruction.txt, "juju destroy-machine": "If the machine is not Alive, abort without
// error. If the machine is the last one with JobManageModel, or has any assigned units, abort
// with an appropriate error. Set the machine to Dying." lifecycles.txt: "While principal units
// are assigned to a machine, its lifecycle cannot change and `juju destroy-machine` will fail."
// (drover's controller is serverless: no machine has JobManageModel, so that clause never applies.)
import type { Machine } from '../entities.js';
import { DroverError, notFound } from '../errors.js';
import { refs, type Plan } from '../plan.js';

export type DestroyMachineResult = 'dying' | 'already-dying';

/** Juju's error for a machine that still has principal units (the first one named). */
export const hasAssignedUnits = (machine: Machine) =>
  new DroverError('has-assignments', `machine ${machine.id} has unit "${machine.principals[0]}" assigned`);

export function planDestroyMachine(snapshot: { machine?: Machine }, intent: { id: string }): Plan<DestroyMachineResult> {
  const { machine } = snapshot;
  if (!machine) throw notFound(`machine ${intent.id} not found`);
  if (machine.life !== 'alive') return { changes: [], result: 'already-dying' };
  if (machine.principals.length > 0) throw hasAssignedUnits(machine);
  return {
    changes: [
      { op: 'update', ref: refs.machine(machine.id), set: { life: 'dying' }, expect: { life: 'alive', setSize: { principals: 0 } } },
    ],
    result: 'dying',
  };
}
