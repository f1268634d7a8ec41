// After a local controller restart (or a reboot of this host) the machine agents it had started
// may be gone: on the local provider a machine's "instance" is a process. The controller starts
// them again for the same provisioning attempt — same instance id, same derived credential, a
// fresh queue — which the provider answers with the live agent where one still runs.
import type { Machine } from '../shared/domain/entities.js';
import type { ProvisionerDeps } from '../shared/provisioner/deps.js';
import { collections } from '../shared/state/engine/keys.js';
import { getMany, listAll } from '../shared/state/engine/reads.js';
import { agentKeyFor, startRequestFor } from '../shared/provisioner/start-request.js';

export async function resumeAgents(deps: ProvisionerDeps): Promise<string[]> {
  const refs = (await Promise.all(collections.machineShards(deps.store.model).map((c) => listAll(deps.store, c)))).flat();
  const machines = (await getMany<Machine>(deps.store, refs)).filter((m) => m.instanceId && m.life !== 'dead');
  const resumed: string[] = [];
  for (const machine of machines) {
    const queueUrl = await deps.queues.ensure(deps.store.model, machine.id);
    const credential = await agentKeyFor(deps, machine);
    const instance = await deps.provider.startInstance(startRequestFor(deps, machine, { credential, queueUrl }));
    if (instance.instanceId === machine.instanceId) resumed.push(machine.id);
  }
  return resumed;
}
