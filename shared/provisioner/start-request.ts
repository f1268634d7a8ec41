// What the provider is asked to start for a machine: the same request whether the provisioner
// starts its first instance, the local controller resumes its agents after a restart, or a dead
// agent is started again. The attempt and the machine id make the idempotency token, so each of
// these asked twice starts one instance.
import type { Machine } from '../domain/entities.js';
import type { StartInstanceRequest } from '../provider/provider.js';
import type { ProvisionerDeps } from './deps.js';

export function startRequestFor(
  deps: Pick<ProvisionerDeps, 'controllerId' | 'apiUrl'>,
  machine: Machine,
  agent: { credential: string; queueUrl: string },
): StartInstanceRequest {
  return {
    controllerId: deps.controllerId,
    machineId: machine.id,
    attempt: machine.provisioningAttempt,
    series: machine.series,
    constraints: machine.constraints,
    agent: { apiUrl: deps.apiUrl, ...agent },
  };
}
