// Creating principal units, shared by deploy and add-unit.
//
// what-we-run-and-why.txt: "when a unit is added, the current environment and service
// constraints are collapsed into a single value and stored for the unit", and "when a machine is
// being added in order to host a given unit, it copies its constraints directly from the unit".
// The transaction asserts the constraint versions it read, so a concurrent set-constraints makes
// it re-plan rather than snapshot a stale value.
import { mergeConstraints } from '../constraints.js';
import type { Application, Machine, Model, Unit } from '../entities.js';
import { invalidArgument, notAlive } from '../errors.js';
import type { Endpoint } from '../charm.js';
import { createUnit, refs, type Change } from '../plan.js';
import { waitingForRelationsMessage } from '../required-relations.js';
import { sequenceNames, type Numbers } from '../sequences.js';
import { newMachine } from './new-machine.js';
import { unitShardsAfter } from '../shards.js';
import { newUnitStorage } from './unit-storage.js';

export interface NewUnitsInput {
  model: Model;
  application: Application;
  /** Where the unit numbers and the new machines' ids come from. */
  numbers: Numbers;
  count: number;
  /** Per unit, in order: an existing machine to place it on (`--to`), or none for a new machine. */
  placements: (Machine | undefined)[];
  /** Required endpoints not yet satisfied: the units wait unassigned. */
  pending: Endpoint[];
  now: string;
}

export interface NewUnits {
  changes: Change[];
  units: string[];
  machines: string[];
}

export function planNewUnits(input: NewUnitsInput): NewUnits {
  const { model, application, count, now } = input;
  if (application.life !== 'alive') {
    throw notAlive(`cannot add unit to application "${application.name}": application is not found or not alive`);
  }
  if (application.subordinate) {
    throw invalidArgument(`cannot add unit to application "${application.name}": application is a subordinate`);
  }
  const waiting = input.pending.length > 0;
  const newMachineCount = waiting
    ? 0
    : input.placements.slice(0, count).filter((p) => !p).length + Math.max(0, count - input.placements.length);
  // Nothing new in a model being destroyed (Juju's checkModelActive): the machine's words when
  // the units would bring new machines, as add-machine says it; the unit's otherwise.
  if (model.life !== 'alive') {
    const cannot = newMachineCount > 0 ? 'cannot add a new machine' : `cannot add unit to application "${application.name}"`;
    throw notAlive(`${cannot}: model "${model.name}" is ${model.life}`);
  }
  const unitNumbers = input.numbers.take(sequenceNames.unitsOf(application.name), count);
  const machineNumbers = input.numbers.take(sequenceNames.machine, newMachineCount);
  const changes: Change[] = [];

  const constraints = mergeConstraints(model.constraints, application.constraints);
  const units: string[] = [];
  const machines: string[] = [];
  let nextMachine = 0;
  unitNumbers.forEach((n, i) => {
    const name = `${application.name}/${n}`;
    const placement = input.placements[i];
    let machine: string | undefined;
    if (!waiting) {
      if (placement) {
        changes.push(placeOnExistingMachine(name, application, placement));
        machine = placement.id;
      } else {
        machine = String(machineNumbers[nextMachine++]);
        machines.push(machine);
        changes.push({
          op: 'create',
          ref: refs.machine(machine),
          value: { ...newMachine(machine, application.series, constraints, now), principals: [name] },
        });
      }
    }
    const unit: Unit = {
      name,
      application: application.name,
      series: application.series,
      life: 'alive',
      subordinates: [],
      constraints,
      scopes: [],
      agentStatus: { current: 'allocating', since: now },
      workloadStatus: {
        current: 'waiting',
        message: waiting ? waitingForRelationsMessage(input.pending) : 'waiting for machine',
        since: now,
      },
      openPorts: [],
      createdAt: now,
      ...(machine !== undefined ? { machine } : {}),
    };
    // "each unit gets its storage in the same transaction as the unit" (Juju's addUnitOps).
    const storage = newUnitStorage({
      charm: application.charm,
      directives: application.storage ?? {},
      unit: name,
      ...(machine !== undefined ? { machine } : {}),
      numbers: input.numbers,
      now,
    });
    if (storage.ids.length > 0) unit.storageAttachments = storage.ids;
    changes.push(...storage.changes);
    // A unit waiting for its required relations remembers where the user asked to place it.
    const value: Record<string, unknown> = { ...unit };
    if (waiting && placement) value.placement = placement.id;
    changes.push(createUnit(application, name, value));
    units.push(name);
  });

  // Crossing the size where one partition would be hot, the layout grows on the item this
  // transaction writes anyway; the units above were placed with the count read, which is below it.
  const grown = unitShardsAfter(application, application.unitCount + count);
  changes.push({
    op: 'update',
    ref: refs.application(application.name),
    add: { unitCount: count },
    ...(grown !== undefined ? { set: { unitShards: grown } } : {}),
    expect: { life: 'alive', equals: { constraintsVersion: application.constraintsVersion } },
  });
  changes.push({ op: 'check', ref: refs.model(), expect: { life: 'alive', equals: { constraintsVersion: model.constraintsVersion } } });
  return { changes, units, machines };
}

/** lifecycles.txt: "While a principal unit is Alive, it can be assigned to a machine" — an Alive machine of its series. */
export function placeOnExistingMachine(unit: string, application: Pick<Application, 'series'>, machine: Machine): Change {
  if (machine.life !== 'alive') throw notAlive(`cannot assign unit "${unit}" to machine ${machine.id}: machine is not found or not alive`);
  if (machine.series !== application.series)
    throw invalidArgument(`cannot assign unit "${unit}" to machine ${machine.id}: series does not match`);
  return {
    op: 'update',
    ref: refs.machine(machine.id),
    addToSet: { principals: [unit] },
    expect: { life: 'alive', equals: { series: machine.series } },
  };
}
