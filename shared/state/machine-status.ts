import { planMarkInstanceMissing, type MarkInstanceMissingResult } from '../domain/plans/machine-status.js';
import { getMachine } from './reads.js';
import { runOperation } from './run-operation.js';
import type { Store } from './store.js';

/** Sets the machine's instance status to `error: instance "<id>" missing`, if it still has that instance. */
export async function markInstanceMissing(store: Store, machineId: string, instanceId: string): Promise<MarkInstanceMissingResult> {
  return runOperation<MarkInstanceMissingResult>(store, `cannot set status of machine ${machineId}`, async () =>
    planMarkInstanceMissing(await getMachine(store, machineId), instanceId, store.now().toISOString()),
  );
}
