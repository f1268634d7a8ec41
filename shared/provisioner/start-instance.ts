// StartInstance with the provisioner's automatic retries (10 attempts at 10 s in Juju 2.9:
// https://github.com/juju/juju/blob/2.9/worker/provisioner/provisioner_task.go). Transient errors
// (capacity, throttling) are retried; any other error is the user's to fix, so it ends the attempt
// at once. Between retries the machine is read again: if it was destroyed or provisioned by someone
// else meanwhile, retrying is pointless.
import type { Machine } from '../domain/entities.js';
import { ProviderError, type InstanceInfo, type StartInstanceRequest } from '../provider/provider.js';
import { getMachine } from '../state/engine/reads.js';
import { logOf, policyOf, sleepOf, type ProvisionerDeps } from './deps.js';
import { errorMessage } from '../domain/errors.js';

export type StartOutcome = { instance: InstanceInfo } | { error: ProviderError } | { superseded: string };

// Anything else that escapes a provider (a bug, a network failure outside its error mapping) is
// treated as transient: retried, then shown on the machine, rather than lost in a log.
const asProviderError = (e: unknown) => (e instanceof ProviderError ? e : new ProviderError(errorMessage(e), true));

/** Why provisioning `attempt` of the machine no longer makes sense, or undefined if it still does. */
export function supersededBecause(machine: Machine | undefined, attempt: number): string | undefined {
  if (!machine) return 'machine removed';
  if (machine.life !== 'alive') return `machine is ${machine.life}`;
  if (machine.instanceId) return `machine has instance ${machine.instanceId}`;
  if (machine.provisioningAttempt !== attempt) return `machine is at provisioning attempt ${machine.provisioningAttempt}`;
  return undefined;
}

export async function startWithRetries(deps: ProvisionerDeps, request: StartInstanceRequest): Promise<StartOutcome> {
  const policy = policyOf(deps);
  const log = logOf(deps);
  for (let call = 1; ; call++) {
    try {
      return { instance: await deps.provider.startInstance(request) };
    } catch (e) {
      const error = asProviderError(e);
      if (!error.transient || call >= policy.startAttempts) return { error };
      log.warn('cannot start instance; retrying', { machineId: request.machineId, attempt: request.attempt, call, error: error.message });
      await sleepOf(deps)(policy.retryDelayMs);
      const superseded = supersededBecause(await getMachine(deps.store, request.machineId), request.attempt);
      if (superseded) return { superseded };
    }
  }
}
