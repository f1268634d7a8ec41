// The provisioner's job for one machine, level-triggered: read the machine, converge it to what
// state says, whatever the trigger (a stream record, a duplicate of one, the periodic resync).
//
// lifecycles.txt, the JobManageEnviron agent's responsibilities:
// - "detecting Alive machines without instance IDs and provisioning provider instances to run
//   their agents";
// - "detecting non-Alive machines without instance IDs and removing them" (as Juju 2.9's
//   worker/provisioner/provisioner_task.go does: a Dying machine that was never provisioned is
//   set Dead, then removed);
// - "detecting Dead machines with instance IDs, decommissioning the instance, and removing the
//   machine".
// A Dying machine with an instance is its own agent's to set Dead ("Once a machine has been set
// to Dying, the corresponding Machine Agent (MA) is responsible for setting it to Dead").
//
// Idempotent side effects: StartInstance for the same machine and attempt returns the same
// instance, and recordInstance asserts that no instance is recorded and the attempt is still
// current; so duplicates, races and a provisioner dying between start and record converge on one
// instance per machine, and a provisioner that lost the race stops what it started.
import type { Machine } from '../domain/entities.js';
import { isDroverError } from '../domain/errors.js';
import { PROVISIONING_ERROR } from '../domain/plans/provisioning.js';
import { hashAgentCredential, setAgentCredentialHash } from '../state/operations/agent-credential.js';
import { ensureMachineDead } from '../state/operations/machine-dead.js';
import { recordInstance, recordProvisioningError } from '../state/operations/provisioning.js';
import { getMachine } from '../state/engine/reads.js';
import { removeMachine } from '../state/operations/remove-machine.js';
import { logOf, policyOf, type ProvisionerDeps } from './deps.js';
import { startWithRetries } from './start-instance.js';
import { agentKeyFor, startRequestFor } from './start-request.js';

export type ReconcileOutcome =
  /** Alive and provisioned: nothing to do. */
  | 'running'
  /** This call started (or found) the instance and recorded it. */
  | 'started'
  /** Someone else recorded this attempt's instance first. */
  | 'already-started'
  /** StartInstance failed; the error is on the machine for the user to see. */
  | 'provisioning-error'
  /** In provisioning error, waiting for retry-provisioning (or for a transient error to age). */
  | 'awaiting-retry'
  /** The machine changed while being provisioned; whatever this call started was stopped. */
  | 'superseded'
  /** Dying with an instance: its agent sets it Dead. */
  | 'awaiting-agent'
  /** Dying, but units are still assigned to it. */
  | 'blocked'
  /** Removed (after stopping its instance, if it had one). */
  | 'removed'
  /** Not in state (any more). */
  | 'gone';

export async function reconcileMachine(deps: ProvisionerDeps, machineId: string): Promise<ReconcileOutcome> {
  const machine = await getMachine(deps.store, machineId);
  if (!machine) {
    // Removal and queue deletion are two steps; this covers a provisioner that died between
    // them (the stream record of the removal brings us here).
    await deps.queues.remove(deps.store.model, machineId);
    return 'gone';
  }
  switch (machine.life) {
    case 'alive':
      return provision(deps, machine);
    case 'dying':
      return finishNeverProvisioned(deps, machine);
    case 'dead':
      return decommission(deps, machine);
  }
}

/** In provisioning error and not (yet) to be tried again. */
function onHold(deps: ProvisionerDeps, machine: Machine): boolean {
  const status = machine.instanceStatus;
  if (status.current !== PROVISIONING_ERROR) return false;
  // what-we-run-and-why.txt: after a failure the user decides ("juju resolved 14", or new
  // constraints); drover's retry-provisioning starts a new attempt with a fresh status.
  if (status.data?.transient !== true) return true;
  return deps.store.now().getTime() - Date.parse(status.since) < policyOf(deps).transientErrorRetryMs;
}

async function provision(deps: ProvisionerDeps, machine: Machine): Promise<ReconcileOutcome> {
  if (machine.instanceId) return 'running';
  if (onHold(deps, machine)) return 'awaiting-retry';
  const { store } = deps;
  const log = logOf(deps);
  const attempt = machine.provisioningAttempt;
  const credential = await agentKeyFor(deps, machine);
  // The queue exists before the agent does, so no hint sent to a new agent is lost. The two are
  // independent (and each safe to repeat), so they are made at once. Where agents are given a key,
  // its hash is stored for the API to check it against; an agent with an instance role has none.
  const [queueUrl, credentialSet] = await Promise.all([
    deps.queues.ensure(deps.store.model, machine.id),
    credential === undefined ? undefined : setAgentCredentialHash(store, machine.id, hashAgentCredential(credential), attempt),
  ]);
  if (typeof credentialSet === 'object') {
    log.info('machine changed before provisioning', { machineId: machine.id, attempt, reason: credentialSet.conflict });
    return 'superseded';
  }
  const started = await startWithRetries(deps, startRequestFor(deps, machine, { credential, queueUrl }));
  if ('superseded' in started) {
    log.info('machine changed while provisioning', { machineId: machine.id, attempt, reason: started.superseded });
    return 'superseded';
  }
  if ('error' in started) {
    // what-we-run-and-why.txt: "the machine has no instance id set and ... an error status set
    // that communicates the nature of the problem".
    log.warn('cannot start instance', { machineId: machine.id, attempt, error: started.error.message, transient: started.error.transient });
    await recordProvisioningError(store, machine.id, { message: started.error.message, transient: started.error.transient, attempt });
    return 'provisioning-error';
  }
  const { instance } = started;
  // The queue is bound to the instance before the instance is recorded: a provisioner that dies
  // between the two starts this attempt again, gets the same instance back and binds it again,
  // so no recorded instance is left with a queue its agent may not read.
  await deps.queues.admitOnly(queueUrl, instance.instanceId);
  const recorded = await recordInstance(store, machine.id, {
    instanceId: instance.instanceId,
    attempt,
    ...(instance.hardware ? { hardware: instance.hardware } : {}),
    addresses: instance.addresses,
  });
  if (typeof recorded === 'object') {
    // Removed, destroyed, re-attempted or provisioned by another provisioner meanwhile: the
    // instance we hold belongs to no machine, so it goes now rather than as a stray later.
    log.info('stopping an instance its machine no longer wants', {
      machineId: machine.id,
      instanceId: instance.instanceId,
      reason: recorded.conflict,
    });
    await deps.provider.stopInstances([instance.instanceId]);
    return 'superseded';
  }
  log.info('instance started', { machineId: machine.id, instanceId: instance.instanceId, attempt });
  return recorded === 'recorded' ? 'started' : 'already-started';
}

async function finishNeverProvisioned(deps: ProvisionerDeps, machine: Machine): Promise<ReconcileOutcome> {
  if (machine.instanceId) return 'awaiting-agent';
  // Nothing runs there to set it Dead, so the provisioner does.
  try {
    await ensureMachineDead(deps.store, machine.id);
  } catch (e) {
    // Units still assigned: their removal will change the machine and bring us back.
    if (isDroverError(e, 'has-assignments')) return 'blocked';
    throw e;
  }
  // Read again: an instance recorded by a provisioner that was mid-start must be stopped too.
  const dead = await getMachine(deps.store, machine.id);
  if (!dead) {
    await deps.queues.remove(deps.store.model, machine.id);
    return 'gone';
  }
  return decommission(deps, dead);
}

async function decommission(deps: ProvisionerDeps, machine: Machine): Promise<ReconcileOutcome> {
  // Stop first, remove after: a failure in between leaves a Dead machine that the next
  // reconcile finishes, never an instance that nothing in state points to.
  if (machine.instanceId) await deps.provider.stopInstances([machine.instanceId]);
  await removeMachine(deps.store, machine.id);
  await deps.queues.remove(deps.store.model, machine.id);
  logOf(deps).info('machine removed', { machineId: machine.id, instanceId: machine.instanceId });
  return 'removed';
}
