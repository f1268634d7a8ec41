// What the provider is asked to start for a machine: the same request whether the provisioner
// starts its first instance, the local controller resumes its agents after a restart, or a dead
// agent is started again. The attempt and the machine id make the idempotency token, so each of
// these asked twice starts one instance. The model's key comes with them: machine ids repeat
// across models.
import type { Machine } from '../domain/entities.js';
import type { StartInstanceRequest } from '../provider/provider.js';
import type { ProvisionerDeps } from './deps.js';

/** The key of the machine's current attempt, where agents are given keys (ProvisionerDeps.credentials). */
export function agentKeyFor(deps: Pick<ProvisionerDeps, 'store' | 'credentials'>, machine: Machine): Promise<string | undefined> {
  return (
    deps.credentials?.forAttempt({ model: deps.store.model, machineId: machine.id, attempt: machine.provisioningAttempt }) ??
    Promise.resolve(undefined)
  );
}

export function startRequestFor(
  deps: Pick<ProvisionerDeps, 'controllerId' | 'apiUrl' | 'store'>,
  machine: Machine,
  agent: { credential: string | undefined; queueUrl: string },
): StartInstanceRequest {
  return {
    controllerId: deps.controllerId,
    model: deps.store.model,
    machineId: machine.id,
    attempt: machine.provisioningAttempt,
    series: machine.series,
    constraints: machine.constraints,
    agent: { apiUrl: deps.apiUrl, queueUrl: agent.queueUrl, ...(agent.credential !== undefined ? { credential: agent.credential } : {}) },
  };
}
