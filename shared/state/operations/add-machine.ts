import { mergeConstraints, type Constraints } from '../../domain/constraints.js';
import { notAlive, invalidArgument } from '../../domain/errors.js';
import { newMachine } from '../../domain/plans/new-machine.js';
import { refs, type Change } from '../../domain/plan.js';
import { sequenceNames, takeNumbers } from '../../domain/sequences.js';
import { requireModel } from '../queries/model.js';
import { getSequence } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

const MACHINES_PER_TRANSACTION = 20;

/**
 * add-machine: what-we-run-and-why.txt: "when a machine is being added without a unit
 * associated ... it copies its constraints directly from the environment" (with --constraints
 * overriding per key, as Juju does).
 */
export async function addMachines(
  store: Store,
  options: { count?: number; series?: string; constraints?: Constraints } = {},
): Promise<string[]> {
  const count = options.count ?? 1;
  if (!Number.isInteger(count) || count < 1) throw invalidArgument('-n must be a positive integer');
  const ids: string[] = [];
  for (let done = 0; done < count; done += MACHINES_PER_TRANSACTION) {
    const chunk = Math.min(MACHINES_PER_TRANSACTION, count - done);
    ids.push(
      ...(await runOperation(store, 'cannot add a new machine', async () => {
        const [model, machineSequence] = await Promise.all([requireModel(store), getSequence(store, sequenceNames.machine)]);
        if (model.life !== 'alive') throw notAlive(`cannot add a new machine: model "${model.name}" is ${model.life}`);
        const now = store.now().toISOString();
        const constraints = mergeConstraints(model.constraints, options.constraints ?? {});
        const numbers = takeNumbers(sequenceNames.machine, machineSequence, chunk);
        const machines = numbers.numbers.map(String);
        const changes: Change[] = [
          numbers.change,
          { op: 'check', ref: refs.model(), expect: { life: 'alive', equals: { constraintsVersion: model.constraintsVersion } } },
          ...machines.map((id): Change => ({
            op: 'create',
            ref: refs.machine(id),
            value: { ...newMachine(id, options.series ?? model.defaultSeries, constraints, now) },
          })),
        ];
        return { changes, result: machines };
      })),
    );
  }
  return ids;
}
