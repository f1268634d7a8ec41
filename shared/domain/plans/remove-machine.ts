// Removing a Dead machine: the provisioner's job, once it has released the instance.
//
// death-and-destruction.txt, "Removing a machine involves a single transaction": "If the machine
// is not Dead, abort with an appropriate error. Delete the machine document."
import type { Machine } from '../entities.js';
import { DroverError } from '../errors.js';
import { refs, type Plan } from '../plan.js';

export function planRemoveMachine(snapshot: { machine?: Machine }, intent: { id: string }): Plan<{ removed: boolean }> {
  const { machine } = snapshot;
  if (!machine) return { changes: [], result: { removed: false } };
  if (machine.life !== 'dead') throw new DroverError('not-dead', `cannot remove machine ${intent.id}: machine is not dead`);
  return { changes: [{ op: 'remove', ref: refs.machine(machine.id), expect: { life: 'dead' } }], result: { removed: true } };
}
