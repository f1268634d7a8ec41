// Removing a Dead unit: the job of whoever deployed it (the machine agent for a principal, the
// principal's agent for a subordinate).
//
// death-and-destruction.txt, "Removing a unit involves a single transaction": "If the unit is a
// principal unit, unassign the unit from its machine. If the unit is a subordinate unit,
// unassign it from its principal unit. Delete the unit document. If its service is Alive, or has
// at least two units, or is in at least one relation, decrement the service's unit count;
// otherwise remove the service."
import type { Application, Machine, Unit } from '../entities.js';
import { DroverError } from '../errors.js';
import { refs, type Change, type Plan } from '../plan.js';
import { ownerSecretsCleanup, releaseApplication, removesApplication, unassignFromMachine } from './references.js';

export interface RemoveUnitResult {
  removed: boolean;
  /** True when the unit was its Dying application's last reference, so the application went too. */
  applicationRemoved: boolean;
}

export interface RemoveUnitSnapshot {
  unit?: Unit;
  application?: Application;
  /** The machine a principal is assigned to. */
  machine?: Machine;
  /** The principal of a subordinate. */
  principal?: Unit;
  /** The unit's charm state item exists (state-set): it goes with the unit. */
  hasState?: boolean;
}

export function planRemoveUnit(snapshot: RemoveUnitSnapshot, intent: { name: string; now: string }): Plan<RemoveUnitResult> {
  const { unit, application } = snapshot;
  if (!unit) return { changes: [], result: { removed: false, applicationRemoved: false } };
  if (unit.life !== 'dead') throw new DroverError('not-dead', `cannot remove unit "${intent.name}": unit is not dead`);

  const changes: Change[] = [];
  if (unit.principal === undefined) {
    if (unit.machine !== undefined && snapshot.machine) changes.push(unassignFromMachine(snapshot.machine, unit.name));
  } else if (snapshot.principal) {
    changes.push({
      op: 'update',
      ref: refs.unit(unit.principal),
      removeFromSet: { subordinates: [unit.name] },
      expect: { contains: { subordinates: unit.name } },
    });
  }
  changes.push({ op: 'remove', ref: refs.unit(unit.name), expect: { life: 'dead' } });
  changes.push(...ownerSecretsCleanup(unit, intent.now));
  // A Dead unit runs no more hooks, so nothing writes its state after this read.
  if (snapshot.hasState) changes.push({ op: 'remove', ref: refs.unitState(unit.name) });
  // releaseApplication asserts the Dying application's counts, so two units removed at once
  // cannot both decrement and leave the application behind with no units.
  const release = application ? releaseApplication(application, { unit: true }) : undefined;
  if (release) changes.push(release, ...(removesApplication(release) ? ownerSecretsCleanup(application!, intent.now) : []));
  return { changes, result: { removed: true, applicationRemoved: release !== undefined && removesApplication(release) } };
}
