// Dead machine agents started again, where the provider can start one in place (the local
// provider: an agent is a process, as Juju's are systemd services that systemd restarts). The
// machine keeps its instance, its directory (charm, unit agent state) and its credential: the
// restart is startInstance of the attempt the machine is at, which the provider answers with a new
// agent process for the same instance id. The unit agents in it then treat the hook that was
// running as failed (agent/uniter/uniter.ts) and the agent kills the hooks the dead one left
// (agent/uniter/hook-groups.ts).
//
// A provider that refuses (the agent keeps dying and must wait out its back-off, or cannot be
// started at all) puts its reason in the machine's instance status; the next successful restart
// takes it away. Only Alive and Dying machines are revived: a Dead one's agent has finished, and
// the provisioner removes the instance.
import type { Machine } from '../domain/entities.js';
import { ProviderError, type InstanceInfo } from '../provider/provider.js';
import { markAgentCrashLooping, markInstanceRunningAgain } from '../state/operations/machine-status.js';
import { getMachine } from '../state/engine/reads.js';
import { forEachBounded } from '../domain/bounded.js';
import { logOf, machineLabel, policyOf, provisionerForModel, type ProvisionerDeps } from './deps.js';
import { agentKeyFor, startRequestFor } from './start-request.js';
import { errorMessage } from '../domain/errors.js';

/** Machines are named as machineLabel says (deps.ts): their id, and their model's key unless it is `default`. */
export interface ReviveResult {
  /** Machines whose agent was started again. */
  revived: string[];
  /** Machines whose agent the provider would not start again yet, with its reason. */
  refused: { machineId: string; reason: string }[];
  /** Machines whose status this call changed (a new refusal): what is worth a log line. */
  newlyRefused: string[];
  failures: { machineId: string; error: string }[];
}

/** The machine still has this instance and wants it running. */
const wantsRevived = (machine: Machine | undefined, instance: InstanceInfo): machine is Machine =>
  machine !== undefined && machine.life !== 'dead' && machine.instanceId === instance.instanceId;

/** Every model's dead agents: the provider lists the controller's instances, each with its machine's model. */
export async function reviveAgents(deps: ProvisionerDeps): Promise<ReviveResult> {
  const result: ReviveResult = { revived: [], refused: [], newlyRefused: [], failures: [] };
  if (!deps.provider.listDeadInstances) return result;
  const dead = await deps.provider.listDeadInstances(deps.controllerId);
  await forEachBounded(dead, policyOf(deps).concurrency, async (instance) => {
    const machine = machineLabel(instance.model, instance.machineId);
    try {
      // A model that is gone has no machine to revive: revive finds none and leaves the instance.
      const outcome = await revive(provisionerForModel(deps, instance.model), instance);
      if (outcome === 'revived') result.revived.push(machine);
      else if (outcome !== 'left') {
        result.refused.push({ machineId: machine, reason: outcome.refused });
        if (outcome.statusChanged) result.newlyRefused.push(machine);
      }
    } catch (e) {
      result.failures.push({ machineId: machine, error: errorMessage(e) });
    }
  });
  // A back-off lasts minutes and this runs every few seconds: a refusal is told once, when it is new.
  if (result.revived.length + result.newlyRefused.length + result.failures.length > 0)
    logOf(deps).warn('dead machine agents', { ...result });
  return result;
}

async function revive(
  deps: ProvisionerDeps,
  instance: InstanceInfo,
): Promise<'revived' | 'left' | { refused: string; statusChanged: boolean }> {
  const { store } = deps;
  const machine = await getMachine(store, instance.machineId);
  // Removed, Dead, or provisioned again meanwhile: the full reconcile reaps the stray.
  if (!wantsRevived(machine, instance)) return 'left';
  const [credential, queueUrl] = await Promise.all([agentKeyFor(deps, machine), deps.queues.ensure(store.model, machine.id)]);
  try {
    const started = await deps.provider.startInstance(startRequestFor(deps, machine, { credential, queueUrl }));
    // Another attempt's instance: the machine record and the provider disagree; the reconcile decides.
    if (started.instanceId !== instance.instanceId) return 'left';
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    const marked = await markAgentCrashLooping(store, machine.id, instance.instanceId, e.message);
    return { refused: e.message, statusChanged: marked === 'set' };
  }
  await markInstanceRunningAgain(store, machine.id, instance.instanceId);
  return 'revived';
}
