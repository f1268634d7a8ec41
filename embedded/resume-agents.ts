// After a local controller restart (or a reboot of this host) the machine agents it had started
// may be gone: on the local provider a machine's "instance" is a process. The controller starts
// them again for the same provisioning attempt — same instance id, same derived credential, a
// fresh queue — which the provider answers with the live agent where one still runs. Every
// model's machines: each is started with its model's key, queue and credential.
import type { Machine } from '#shared/domain/entities.js';
import { machineLabel, type ProvisionerDeps } from '#shared/provisioner/deps.js';
import { collections } from '#shared/state/engine/keys.js';
import { getMany, listAll } from '#shared/state/engine/reads.js';
import { storesToSweep } from '#shared/state/queries/models-to-sweep.js';
import { agentKeyFor, startRequestFor } from '#shared/provisioner/start-request.js';

/** The machines whose agent runs now (machineLabel: the id, and the model's key unless it is `default`). */
export async function resumeAgents(deps: ProvisionerDeps): Promise<string[]> {
  const resumed: string[] = [];
  for (const store of await storesToSweep(deps.store)) {
    const model = { ...deps, store };
    const refs = (await Promise.all(collections.machineShards(store.model).map((c) => listAll(store, c)))).flat();
    const machines = (await getMany<Machine>(store, refs)).filter((m) => m.instanceId && m.life !== 'dead');
    for (const machine of machines) {
      const queueUrl = await deps.queues.ensure(store.model, machine.id);
      const credential = await agentKeyFor(model, machine);
      const instance = await deps.provider.startInstance(startRequestFor(model, machine, { credential, queueUrl }));
      if (instance.instanceId === machine.instanceId) resumed.push(machineLabel(store.model, machine.id));
    }
  }
  return resumed;
}
