// `--to` placement: which existing machines the new units go on.
import type { Machine } from '../../domain/entities.js';
import { invalidArgument, notFound } from '../../domain/errors.js';
import { isValidMachineId } from '../../domain/names.js';
import { getMachine } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

/** Reads the machines named by `--to` (machine ids only; drover has no containers). */
export async function readPlacements(store: Store, to: string[] | undefined): Promise<Machine[]> {
  const machines: Machine[] = [];
  for (const directive of to ?? []) {
    if (!isValidMachineId(directive)) {
      throw invalidArgument(`invalid --to placement "${directive}": drover places units on existing machines by id (e.g. --to 3)`);
    }
    const machine = await getMachine(store, directive);
    if (!machine) throw notFound(`cannot assign unit to machine ${directive}: machine ${directive} not found`);
    machines.push(machine);
  }
  return machines;
}
