import { mergeConstraints, type Constraints } from '../constraints.js';
import type { Machine, Model } from '../entities.js';
import { notAlive } from '../errors.js';
import { refs, type Change, type Plan } from '../plan.js';
import { sequenceNames, type Numbers } from '../sequences.js';

/** A machine as it starts out: Alive, no instance, waiting for the provisioner. */
export function newMachine(id: string, series: string, constraints: Constraints, now: string): Machine {
  return {
    id,
    life: 'alive',
    series,
    constraints,
    principals: [],
    provisioningAttempt: 0,
    agentStatus: { current: 'pending', since: now },
    instanceStatus: { current: 'pending', since: now },
    addresses: [],
    createdAt: now,
  };
}

/**
 * add-machine: Juju's "What We Run, and Why" (docs/lifecycle-rules.md, "Sources"): "when a
 * machine is being added without a unit associated ... it copies its constraints directly from
 * the environment" (with --constraints
 * overriding per key, as Juju does). Numbers `count` machines from the machine sequence.
 */
export function planAddMachines(
  model: Model,
  numbers: Numbers,
  count: number,
  options: { series?: string; constraints?: Constraints },
  now: string,
): Plan<string[]> {
  if (model.life !== 'alive') throw notAlive(`cannot add a new machine: model "${model.name}" is ${model.life}`);
  const constraints = mergeConstraints(model.constraints, options.constraints ?? {});
  const machines = numbers.take(sequenceNames.machine, count).map(String);
  const changes: Change[] = [
    { op: 'check', ref: refs.model(), expect: { life: 'alive', equals: { constraintsVersion: model.constraintsVersion } } },
    ...machines.map((id): Change => ({
      op: 'create',
      ref: refs.machine(id),
      value: { ...newMachine(id, options.series ?? model.defaultSeries, constraints, now) },
    })),
  ];
  return { changes, result: machines };
}
