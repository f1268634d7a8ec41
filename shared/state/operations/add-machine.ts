// add-machine (shared/domain/plans/new-machine.ts decides), at most 20 machines per transaction.
import type { Constraints } from '../../domain/constraints.js';
import { invalidArgument } from '../../domain/errors.js';
import { planAddMachines } from '../../domain/plans/new-machine.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { requireModel } from '../queries/model.js';

const MACHINES_PER_TRANSACTION = 20;

export async function addMachines(
  store: Store,
  options: { count?: number; series?: string; constraints?: Constraints } = {},
): Promise<string[]> {
  const count = options.count ?? 1;
  if (!Number.isInteger(count) || count < 1) throw invalidArgument('-n must be a positive integer');
  const ids: string[] = [];
  for (let added = 0; added < count; added += MACHINES_PER_TRANSACTION) {
    const chunk = Math.min(MACHINES_PER_TRANSACTION, count - added);
    // The chunk's ids, kept across attempts.
    const reservations = new NumberReservations(store);
    ids.push(
      ...(await runOperation(store, 'cannot add a new machine', async (store) => {
        const model = await requireModel(store);
        return reservations.plan((numbers) => planAddMachines(model, numbers, chunk, options, store.now().toISOString()));
      })),
    );
  }
  return ids;
}
