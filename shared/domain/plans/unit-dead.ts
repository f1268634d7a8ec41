// The unit agent setting its unit Dead, once it has removed every impediment.
//
// lifecycles.txt: "A unit can become Dying at any time, but may not become Dead while any unit
// subordinate to it exists, or while the unit is in scope for any relation." The agent must
// "Depart from all its relations ...; Wait for all its subordinates to become Dead, and remove
// them from state; Set its unit to Dead."
import type { Unit } from '../entities.js';
import { DroverError } from '../errors.js';
import { refs, type Plan } from '../plan.js';

export type UnitDeadResult = 'dead' | 'already-dead';

export function planEnsureUnitDead(snapshot: { unit?: Unit }): Plan<UnitDeadResult> {
  const { unit } = snapshot;
  // Removed already: it was Dead before that (as Juju's EnsureDead, a no-op).
  if (!unit || unit.life === 'dead') return { changes: [], result: 'already-dead' };
  // Subordinates are assigned to their principal as principals are to their machine: the same code.
  if (unit.subordinates.length > 0) throw new DroverError('has-assignments', 'unit has subordinates');
  if (unit.scopes.length > 0) {
    const keys = unit.scopes.map((k) => `"${k}"`).join(', ');
    throw new DroverError('has-assignments', `unit "${unit.name}" is still in scope of relations: ${keys}`);
  }
  // "a unit cannot become Dead while it has attachments that are not Dead": its agent detaches
  // each (storage-detached) after running -storage-detaching, and only then sets it Dead.
  const attached = unit.storageAttachments ?? [];
  if (attached.length > 0) {
    throw new DroverError(
      'has-assignments',
      `unit "${unit.name}" still has storage attached: ${attached.map((id) => `"${id}"`).join(', ')}`,
    );
  }
  return {
    changes: [
      {
        op: 'update',
        ref: refs.unit(unit.name),
        set: { life: 'dead' },
        expect: { life: unit.life, setSize: { subordinates: 0, scopes: 0, storageAttachments: 0 } },
      },
    ],
    result: 'dead',
  };
}
