import {
  planAgentCrashLooping,
  planInstanceRunningAgain,
  planMarkInstanceMissing,
  type InstanceStatusResult,
  type MarkInstanceMissingResult,
} from '../../domain/plans/machine-status.js';
import { getMachine } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** Sets the machine's instance status to `error: instance "<id>" missing`, if it still has that instance. */
export async function markInstanceMissing(store: Store, machineId: string, instanceId: string): Promise<MarkInstanceMissingResult> {
  return runOperation<MarkInstanceMissingResult>(store, `cannot set status of machine ${machineId}`, async (store) =>
    planMarkInstanceMissing(await getMachine(store, machineId), instanceId, store.now().toISOString()),
  );
}

/** Shows that the machine's agent keeps dying and is restarted with a back-off (`message` says when). */
export async function markAgentCrashLooping(
  store: Store,
  machineId: string,
  instanceId: string,
  message: string,
): Promise<InstanceStatusResult> {
  return runOperation<InstanceStatusResult>(store, `cannot set status of machine ${machineId}`, async (store) =>
    planAgentCrashLooping(await getMachine(store, machineId), instanceId, message, store.now().toISOString()),
  );
}

/** Clears an instance error once the instance's agent runs again. */
export async function markInstanceRunningAgain(store: Store, machineId: string, instanceId: string): Promise<InstanceStatusResult> {
  return runOperation<InstanceStatusResult>(store, `cannot set status of machine ${machineId}`, async (store) =>
    planInstanceRunningAgain(await getMachine(store, machineId), instanceId, store.now().toISOString()),
  );
}
