import type { Constraints } from '../../domain/constraints.js';
import {
  planProvisioningError,
  planRecordInstance,
  planRetryProvisioning,
  type InstanceRecord,
  type RecordInstanceResult,
} from '../../domain/plans/provisioning.js';
import { getMachine } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function recordInstance(store: Store, machineId: string, record: InstanceRecord): Promise<RecordInstanceResult> {
  // Speculative, as setAgentCredentialHash: the plan asserts no instance, the attempt and the life it read.
  return runOperation<RecordInstanceResult>(
    store,
    `cannot record instance of machine ${machineId}`,
    async (store) => planRecordInstance(await getMachine(store, machineId), record, store.now().toISOString()),
    { speculate: true },
  );
}

export async function recordProvisioningError(
  store: Store,
  machineId: string,
  error: { message: string; transient: boolean; attempt: number },
): Promise<void> {
  await runOperation(store, `cannot set status of machine ${machineId}`, async (store) =>
    planProvisioningError(await getMachine(store, machineId), error, store.now().toISOString()),
  );
}

/** `retry-provisioning <machine>`, and `resolved <machine> [--constraints "..."]` from what-we-run-and-why.txt. */
export async function retryProvisioning(store: Store, machineId: string, constraints?: Constraints): Promise<void> {
  await runOperation(store, `cannot retry provisioning of machine ${machineId}`, async (store) =>
    planRetryProvisioning(machineId, await getMachine(store, machineId), store.now().toISOString(), constraints),
  );
}
