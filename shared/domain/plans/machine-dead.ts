// The machine agent setting its Dying machine Dead.
//
// lifecycles.txt: "Once a machine has been set to Dying, the corresponding Machine Agent (MA) is
// responsible for setting it to Dead", and "While principal units are assigned to a machine, its
// lifecycle cannot change".
import type { Machine } from '../entities.js';
import { invalidArgument } from '../errors.js';
import { refs, type Plan } from '../plan.js';
import { hasAssignedUnits } from './destroy-machine.js';

export type MachineDeadResult = 'dead' | 'already-dead';

export function planEnsureMachineDead(snapshot: { machine?: Machine }, intent: { id: string }): Plan<MachineDeadResult> {
  const { machine } = snapshot;
  // Removed already: it was Dead before that.
  if (!machine || machine.life === 'dead') return { changes: [], result: 'already-dead' };
  // Only the user starts a machine's destruction (destroy-machine); the agent only finishes it.
  if (machine.life === 'alive') throw invalidArgument(`machine ${intent.id} is not dying`);
  if (machine.principals.length > 0) throw hasAssignedUnits(machine);
  return {
    changes: [
      { op: 'update', ref: refs.machine(machine.id), set: { life: 'dead' }, expect: { life: 'dying', setSize: { principals: 0 } } },
    ],
    result: 'dead',
  };
}
