// Assigning a unit that waited for its required relations (required-relations-proposal.txt:
// "Deployed when all required relations are satisfied"): once an Alive relation satisfies every
// required endpoint, the unit gets a machine "without another user action".
import type { Application, Machine, Relation, Unit } from '../entities.js';
import { refs, done, type Change, type Plan } from '../plan.js';
import { pendingRequirements } from '../required-relations.js';
import { sequenceNames, type Numbers } from '../sequences.js';
import { newMachine } from './new-machine.js';
import { placeOnExistingMachine } from './new-units.js';
import { errorMessage } from '../errors.js';

export interface AssignSnapshot {
  unit?: Unit & { placement?: string };
  application?: Application;
  relations: Relation[];
  /** The machine the user asked for at add-unit (`--to`), if any. */
  placement?: Machine;
  /** Where a new machine's id comes from. */
  numbers: Numbers;
}

export type AssignResult = { assigned: false; reason: string } | { assigned: true; machine: string; newMachine: boolean };

export function planAssignUnit(s: AssignSnapshot, now: string): Plan<AssignResult> {
  const { unit, application } = s;
  if (!unit || unit.life !== 'alive') return done({ assigned: false, reason: 'unit is not alive' });
  if (unit.machine !== undefined || unit.principal) return done({ assigned: false, reason: 'already assigned' });
  if (!application || application.life !== 'alive') return done({ assigned: false, reason: 'application is not alive' });
  if (pendingRequirements(application, s.relations).length) return done({ assigned: false, reason: 'required relations still missing' });

  // The relations that satisfy the requirements must still be Alive when this commits.
  const satisfying = s.relations.filter((r) => r.life === 'alive');
  const changes: Change[] = satisfying.map((r) => ({ op: 'check', ref: refs.relation(r.key), expect: { life: 'alive' } }));
  changes.push({ op: 'check', ref: refs.application(application.name), expect: { life: 'alive' } });
  let machine: string;
  if (unit.placement !== undefined) {
    // The machine asked for at add-unit may have gone or died while the unit waited: say so on the
    // unit rather than place it elsewhere behind the user's back.
    let placed: Change;
    try {
      if (!s.placement)
        throw new Error(`cannot assign unit "${unit.name}" to machine ${unit.placement}: machine ${unit.placement} not found`);
      placed = placeOnExistingMachine(unit.name, application, s.placement);
    } catch (e) {
      const message = errorMessage(e);
      if (unit.workloadStatus.message === message) return done({ assigned: false, reason: message });
      return {
        changes: [
          {
            op: 'update',
            ref: refs.unit(unit.name),
            set: { workloadStatus: { current: 'error', message, since: now } },
            expect: { life: 'alive', absent: ['machine'] },
          },
        ],
        result: { assigned: false, reason: message },
      };
    }
    changes.push(placed);
    machine = unit.placement;
  } else {
    machine = String(s.numbers.take(sequenceNames.machine, 1)[0]);
    changes.push({
      op: 'create',
      ref: refs.machine(machine),
      value: { ...newMachine(machine, unit.series, unit.constraints, now), principals: [unit.name] },
    });
  }
  changes.push({
    op: 'update',
    ref: refs.unit(unit.name),
    set: { machine, workloadStatus: { current: 'waiting', message: 'waiting for machine', since: now } },
    unset: ['placement'],
    expect: { life: 'alive', absent: ['machine'] },
  });
  return { changes, result: { assigned: true, machine, newMachine: unit.placement === undefined } };
}
