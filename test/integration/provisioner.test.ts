import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvisionerHandler, createReconcileHandler } from '../../functions/provisioner/handler.js';
import type { Machine } from '#shared/domain/entities.js';
import { refs } from '#shared/domain/plan.js';
import type { LocalProvider } from '#shared/provider/local/local-provider.js';
import { machineDirOf, readRecord } from '#shared/provider/local/machine-dir.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { ProviderError, type Provider, type VolumeInfo, type Volumes } from '#shared/provider/provider.js';
import type { ProvisionerDeps } from '#shared/provisioner/deps.js';
import { reconcileAll } from '#shared/provisioner/reconcile-all.js';
import { reconcileMachine } from '#shared/provisioner/reconcile-machine.js';
import { reviveAgents } from '#shared/provisioner/revive-agents.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { verifyAgentCredential } from '#shared/state/operations/agent-credential.js';
import { toItem } from '#shared/state/engine/codec.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { keyOf } from '#shared/state/engine/keys.js';
import { ensureMachineDead } from '#shared/state/operations/machine-dead.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { recordInstance, retryProvisioning } from '#shared/state/operations/provisioning.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { removeMachine } from '#shared/state/operations/remove-machine.js';
import { readStatus } from '#shared/state/queries/status.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { agentCredentialDigest, digestOf, killAllAgents, liveAgentPids, localProvider, tempDataDir } from '../support/local-agents.js';
import { waitFor } from '../support/wait-for.js';
import { CONTROLLER_ID, FaultyProvider, provisionerDeps, TestQueues } from '../support/provisioner.js';
import { useSqsServer } from '../support/sqs.js';
import { freshStore } from '../support/table.js';

const sqs = useSqsServer();
let store: Store;
let dataDir: string;
let local: LocalProvider;
let provider: FaultyProvider;
let queues: TestQueues;
let deps: ProvisionerDeps;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  dataDir = tempDataDir();
  local = localProvider(dataDir);
  provider = new FaultyProvider(local);
  queues = new TestQueues(sqs.client());
  deps = provisionerDeps(store, provider, queues);
});
afterEach(async () => {
  await killAllAgents(dataDir);
});

const machine = async (id: string) => (await getMachine(store, id)) as Machine;
const addMachine = async () => ((await addMachines(store)) as [string])[0];
const instanceIdOf = (machineId: string, attempt = 0) => `local-${CONTROLLER_ID}-${machineId}-${attempt}`;
const transient = (message: string) => new ProviderError(message, true);
const permanent = (message: string) => new ProviderError(message, false);

describe('provisioning Alive machines', () => {
  it('"detecting Alive machines without instance IDs and provisioning provider instances to run their agents"', async () => {
    const id = await addMachine();
    expect(await reconcileMachine(deps, id)).toBe('started');
    const m = await machine(id);
    expect(m).toMatchObject({ instanceId: instanceIdOf(id), instanceStatus: { current: 'running' }, addresses: ['127.0.0.1'] });
    expect((await local.listInstances(CONTROLLER_ID)).map((i) => i.instanceId)).toEqual([instanceIdOf(id)]);
    expect(liveAgentPids(dataDir)).toHaveLength(1);
    expect(await queues.exists(id)).toBe(true);
  });

  it("binds the machine's queue to its instance: the queue admits that instance's agent only", async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    expect(await queues.admits(id)).toMatch(new RegExp(`^arn:aws:ec2:[a-z0-9-]+:\\d*:instance/${instanceIdOf(id)}$`));
  });

  it('gives the agent its own credential and stores only its hash', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    const m = await machine(id);
    const credential = await deps.credentials!.forAttempt({ model: store.model, machineId: id, attempt: 0 });
    // The agent got it (on its standard input), and no file in its directory holds it.
    expect(await agentCredentialDigest(machineDirOf(dataDir, id))).toBe(digestOf(credential));
    expect(existsSync(join(machineDirOf(dataDir, id), 'credential'))).toBe(false);
    expect(m.agentCredentialAttempt).toBe(0);
    expect(m.agentCredentialHash).not.toContain(credential);
    expect(verifyAgentCredential(m.agentCredentialHash, credential)).toBe(true);
    expect(verifyAgentCredential(m.agentCredentialHash, `${credential}x`)).toBe(false);
  });

  it('reconciling twice leaves one instance', async () => {
    const id = await addMachine();
    expect(await reconcileMachine(deps, id)).toBe('started');
    expect(await reconcileMachine(deps, id)).toBe('running');
    expect(liveAgentPids(dataDir)).toHaveLength(1);
    expect(provider.startCalls).toBe(1);
  });

  it('concurrent reconciles of one machine leave one instance', async () => {
    const id = await addMachine();
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => reconcileMachine(deps, id)));
    expect(outcomes.filter((o) => o === 'started')).toHaveLength(1);
    expect(outcomes.every((o) => ['started', 'already-started', 'running'].includes(o))).toBe(true);
    expect(liveAgentPids(dataDir)).toHaveLength(1);
    expect((await machine(id)).instanceId).toBe(instanceIdOf(id));
  });

  it('a provisioner that died between starting the instance and recording it leaves one instance', async () => {
    const id = await addMachine();
    // The first provisioner got as far as StartInstance...
    const first = await local.startInstance({
      controllerId: CONTROLLER_ID,
      model: 'default',
      machineId: id,
      attempt: 0,
      series: 'jammy',
      constraints: {},
      agent: {
        apiUrl: deps.apiUrl,
        credential: await deps.credentials!.forAttempt({ model: store.model, machineId: id, attempt: 0 }),
        queueUrl: 'q',
      },
    });
    const pid = readRecord(machineDirOf(dataDir, id))!.pid;
    // ...and the next reconcile adopts that instance instead of starting another.
    expect(await reconcileMachine(deps, id)).toBe('started');
    expect((await machine(id)).instanceId).toBe(first.instanceId);
    expect(liveAgentPids(dataDir)).toEqual([pid]);
  });

  it('the adopted instance carries the credential whose hash is stored', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    const credential = await deps.credentials!.forAttempt({ model: store.model, machineId: id, attempt: 0 });
    expect(await agentCredentialDigest(machineDirOf(dataDir, id))).toBe(digestOf(credential));
    // A second provisioner (another Lambda, a restarted controller) derives the same credential.
    const other = provisionerDeps(store, provider, queues, { credentials: deps.credentials });
    expect(await reconcileMachine(other, id)).toBe('running');
    expect(verifyAgentCredential((await machine(id)).agentCredentialHash, credential)).toBe(true);
  });

  it('a provisioner that loses the race to record stops the instance it started', async () => {
    const id = await addMachine();
    provider.afterStart = async () => {
      // Another provisioner records its instance first.
      await recordInstance(store, id, { instanceId: 'i-other', attempt: 0 });
    };
    expect(await reconcileMachine(deps, id)).toBe('superseded');
    expect((await machine(id)).instanceId).toBe('i-other');
    expect(provider.stopped).toEqual([instanceIdOf(id)]);
    expect(liveAgentPids(dataDir)).toEqual([]);
  });

  it('a machine removed while its instance was starting gets its instance stopped', async () => {
    const id = await addMachine();
    provider.afterStart = async () => {
      await destroyMachine(store, id);
      await reconcileMachine({ ...deps, provider: local }, id); // the stream's reconcile of the Dying machine
    };
    const outcome = await reconcileMachine(deps, id);
    expect(await getMachine(store, id)).toBeUndefined();
    expect(outcome).toBe('superseded');
    expect(liveAgentPids(dataDir)).toEqual([]);
  });
});

describe('provisioning errors', () => {
  it('transient errors are retried, and the instance starts once they pass', async () => {
    const id = await addMachine();
    provider.startFailures.push(transient('capacity'), transient('throttled'));
    expect(await reconcileMachine(deps, id)).toBe('started');
    expect(provider.startCalls).toBe(3);
    expect(liveAgentPids(dataDir)).toHaveLength(1);
  });

  it('transient errors are retried up to the bound, then recorded as a transient provisioning error', async () => {
    const id = await addMachine();
    provider.startFailures.push(transient('capacity 1'), transient('capacity 2'), transient('capacity 3'), transient('never reached'));
    expect(await reconcileMachine(deps, id)).toBe('provisioning-error');
    expect(provider.startCalls).toBe(3);
    const m = await machine(id);
    expect(m.instanceId).toBeUndefined();
    expect(m.instanceStatus).toMatchObject({ current: 'provisioning error', message: 'capacity 3', data: { transient: true } });
    expect(liveAgentPids(dataDir)).toEqual([]);
  });

  it('a transient provisioning error is tried again once it is old enough (Juju polls them every minute)', async () => {
    const id = await addMachine();
    deps = provisionerDeps(store, provider, queues, { policy: { startAttempts: 1, retryDelayMs: 1, transientErrorRetryMs: 100 } });
    provider.startFailures.push(transient('capacity'));
    // The error's age is read on the store's clock: held still, then moved past the retry delay
    // (no waiting, and a slow host cannot age the error early).
    const t0 = Date.now();
    deps.store.now = () => new Date(t0);
    expect(await reconcileMachine(deps, id)).toBe('provisioning-error');
    expect(await reconcileMachine(deps, id)).toBe('awaiting-retry');
    deps.store.now = () => new Date(t0 + 150);
    expect(await reconcileMachine(deps, id)).toBe('started');
    expect((await machine(id)).instanceId).toBe(instanceIdOf(id));
  });

  it('a non-transient error is recorded at once, shown by status, and not retried until retry-provisioning', async () => {
    const id = await addMachine();
    provider.startFailures.push(permanent('no instance types in us-east-1 matching constraints "cores=1000"'));
    expect(await reconcileMachine(deps, id)).toBe('provisioning-error');
    expect(provider.startCalls).toBe(1);
    const status = await readStatus(store);
    expect(status.machines[id]).toMatchObject({
      'instance-id': 'pending',
      'machine-status': { current: 'provisioning error', message: 'no instance types in us-east-1 matching constraints "cores=1000"' },
    });

    expect(await reconcileMachine(deps, id)).toBe('awaiting-retry');
    expect(await reconcileAll(deps)).toMatchObject({ outcomes: { 'awaiting-retry': 1 } });
    expect(provider.startCalls).toBe(1);

    await retryProvisioning(store, id);
    expect(await reconcileMachine(deps, id)).toBe('started');
    expect((await machine(id)).instanceId).toBe(instanceIdOf(id, 1));
  });

  it('a retried attempt gets a new credential; the old one no longer verifies', async () => {
    const id = await addMachine();
    provider.startFailures.push(permanent('bad image'));
    await reconcileMachine(deps, id);
    const old = await deps.credentials!.forAttempt({ model: store.model, machineId: id, attempt: 0 });
    await retryProvisioning(store, id);
    await reconcileMachine(deps, id);
    const hash = (await machine(id)).agentCredentialHash;
    expect(verifyAgentCredential(hash, old)).toBe(false);
    const current = await deps.credentials!.forAttempt({ model: store.model, machineId: id, attempt: 1 });
    expect(verifyAgentCredential(hash, current)).toBe(true);
    expect(await agentCredentialDigest(machineDirOf(dataDir, id))).toBe(digestOf(current));
  });

  it('stops retrying when the machine is destroyed meanwhile', async () => {
    const id = await addMachine();
    deps = provisionerDeps(store, provider, queues, {
      sleep: async () => {
        await destroyMachine(store, id);
      },
    });
    provider.startFailures.push(transient('capacity'), transient('capacity'));
    expect(await reconcileMachine(deps, id)).toBe('superseded');
    expect(provider.startCalls).toBe(1);
  });
});

describe('removing machines', () => {
  it('"detecting non-Alive machines without instance IDs and removing them": a Dying machine never provisioned is removed', async () => {
    const id = await addMachine();
    provider.startFailures.push(permanent('no capacity'));
    await reconcileMachine(deps, id);
    await destroyMachine(store, id);
    expect(await reconcileMachine(deps, id)).toBe('removed');
    expect(await getMachine(store, id)).toBeUndefined();
    expect(await queues.exists(id)).toBe(false);
    expect(provider.stopped).toEqual([]);
  });

  it('a Dying machine with an instance is left to its agent', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    await destroyMachine(store, id);
    expect(await reconcileMachine(deps, id)).toBe('awaiting-agent');
    expect((await machine(id)).life).toBe('dying');
    expect(liveAgentPids(dataDir)).toHaveLength(1);
  });

  it('"detecting Dead machines with instance IDs, decommissioning the instance, and removing the machine"', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    const pid = readRecord(machineDirOf(dataDir, id))!.pid;
    await destroyMachine(store, id);
    await ensureMachineDead(store, id); // the machine agent's part
    expect(await reconcileMachine(deps, id)).toBe('removed');
    expect(await getMachine(store, id)).toBeUndefined();
    expect(isProcessAlive({ pid })).toBe(false);
    expect(await local.listInstances(CONTROLLER_ID)).toEqual([]);
    expect(await queues.exists(id)).toBe(false);
  });

  it('a removed machine still gets its queue deleted (the provisioner died between the two)', async () => {
    const id = await addMachine();
    await queues.ensure('default', id);
    await destroyMachine(store, id);
    await ensureMachineDead(store, id);
    await removeMachine(store, id);
    expect(await reconcileMachine(deps, id)).toBe('gone');
    expect(await queues.exists(id)).toBe(false);
  });
});

describe('the full reconcile', () => {
  it("covers every model: machine 0 of each gets its instance, and neither is taken for the other's stray", async () => {
    const other = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    const [a] = (await addMachines(store)) as [string];
    const [b] = (await addMachines(other)) as [string];
    expect(await reconcileAll(deps)).toMatchObject({ machines: 2, outcomes: { started: 2 }, strays: [], failures: [] });
    const again = await reconcileAll(deps);
    expect(again).toMatchObject({ machines: 2, strays: [], missing: [], failures: [] });
    expect(again.outcomes.started).toBeUndefined();
    expect((await local.listInstances(CONTROLLER_ID)).map((i) => `${i.model}/${i.machineId}`).sort()).toEqual(
      [`default/${a}`, `${other.model}/${b}`].sort(),
    );
    expect(liveAgentPids(dataDir)).toHaveLength(2);
  });

  it('provisions Alive machines and removes Dead ones, as a resync after lost stream records', async () => {
    const [a, b] = (await addMachines(store, { count: 2 })) as [string, string];
    await destroyMachine(store, b);
    const result = await reconcileAll(deps);
    expect(result).toMatchObject({ machines: 2, outcomes: { started: 1, removed: 1 }, strays: [], missing: [], failures: [] });
    expect((await machine(a)).instanceId).toBe(instanceIdOf(a));
    expect(await getMachine(store, b)).toBeUndefined();
  });

  it('stops stray instances: of machines unknown to state, and of machines with another instance recorded', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    // An agent for a machine state never heard of (left by a crashed controller, say)...
    const unknown = await local.startInstance({
      controllerId: CONTROLLER_ID,
      model: 'default',
      machineId: '42',
      attempt: 0,
      series: 'jammy',
      constraints: {},
      agent: { apiUrl: 'a', credential: 'c', queueUrl: 'q' },
    });
    // ...and an instance of machine `id` that is not the one recorded.
    provider.phantoms.push({ instanceId: 'i-phantom', model: 'default', machineId: id, state: 'running', addresses: [] });
    const result = await reconcileAll(deps);
    expect(result.strays.sort()).toEqual([unknown.instanceId, 'i-phantom'].sort());
    expect((await local.listInstances(CONTROLLER_ID)).map((i) => i.instanceId)).toEqual([instanceIdOf(id)]);
    expect(liveAgentPids(dataDir)).toHaveLength(1);
  });

  it('reaps the instance of a machine removed without its provisioner (a restarted controller re-adopts and reaps)', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    await destroyMachine(store, id);
    await ensureMachineDead(store, id);
    await removeMachine(store, id);
    const restarted = provisionerDeps(store, localProvider(dataDir), queues);
    expect((await reconcileAll(restarted)).strays).toEqual([instanceIdOf(id)]);
    expect(liveAgentPids(dataDir)).toEqual([]);
  });

  it("reaps orphaned volumes with the strays, from every model's storage read after the listing; none without a storage reader", async () => {
    const listed: VolumeInfo[] = [
      { volumeId: 'vol-orphan', state: 'available', model: 'default', storageId: 'gone/0', sizeGiB: 1, attachments: [], createdAt: 0 },
      { volumeId: 'vol-kept', state: 'available', model: 'default', storageId: 'data/0', sizeGiB: 1, attachments: [], createdAt: 0 },
    ];
    const deleted: string[] = [];
    const order: string[] = [];
    const volumes = {
      listVolumes: async () => {
        order.push('list volumes');
        return listed;
      },
      deleteVolume: async (id: string) => {
        deleted.push(id);
      },
    } as unknown as Volumes;
    const withVolumes: Provider = {
      startInstance: (r) => provider.startInstance(r),
      stopInstances: (ids) => provider.stopInstances(ids),
      listInstances: (c) => provider.listInstances(c),
      volumes,
    };
    expect((await reconcileAll({ ...deps, provider: withVolumes })).reapedVolumes).toEqual([]);
    expect(order).toEqual([]);
    const storageClaims = async (stores: Store[]) => {
      order.push(`read ${stores.map((s) => s.model).join(',')}`);
      return [{ model: 'default', storageId: 'data/0', life: 'alive' as const, volumeId: 'vol-kept' }];
    };
    const result = await reconcileAll({ ...deps, provider: withVolumes, storageClaims });
    expect(result).toMatchObject({ reapedVolumes: ['vol-orphan'], failures: [] });
    expect(deleted).toEqual(['vol-orphan']);
    expect(order).toEqual(['list volumes', 'read default']);
  });

  it('past its deadline it still stops strays, then leaves the machines to the next run and says how many', async () => {
    const [a] = (await addMachines(store, { count: 2 })) as [string, string];
    provider.phantoms.push({ instanceId: 'i-stray', model: 'default', machineId: '77', state: 'running', addresses: [] });
    const result = await reconcileAll(deps, { deadline: 0 });
    expect(result).toMatchObject({ machines: 2, strays: ['i-stray'], unfinished: 2, outcomes: {} });
    expect((await machine(a)).instanceId).toBeUndefined();
    // The next run, with time, does them.
    expect(await reconcileAll(deps)).toMatchObject({ unfinished: 0, outcomes: { started: 2 } });
  });

  it('leaves alone an instance whose machine has none recorded yet (it may be mid-provisioning)', async () => {
    const id = await addMachine();
    provider.startFailures.push(permanent('no'));
    await reconcileMachine(deps, id); // in error: reconcileAll will not provision it
    provider.phantoms.push({ instanceId: 'i-starting', model: 'default', machineId: id, state: 'pending', addresses: [] });
    expect((await reconcileAll(deps)).strays).toEqual([]);
  });

  it('marks a machine whose instance vanished: instance "<id>" missing', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    const pid = readRecord(machineDirOf(dataDir, id))!.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'the agent process to end',
      () => isProcessAlive({ pid }),
      (alive) => !alive,
    );
    // The listing is strictly after the instance was recorded: on the store's clock, no waiting.
    const later = Date.now() + 5;
    deps.store.now = () => new Date(later);
    const result = await reconcileAll(deps);
    expect(result.missing).toEqual([id]);
    expect((await machine(id)).instanceStatus).toMatchObject({ current: 'error', message: `instance "${instanceIdOf(id)}" missing` });
    expect((await readStatus(store)).machines[id]).toMatchObject({
      'machine-status': { current: 'error', message: `instance "${instanceIdOf(id)}" missing` },
    });
  });

  it('does not declare missing an instance recorded within the grace period (EC2 lists new instances late)', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    const pid = readRecord(machineDirOf(dataDir, id))!.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'the agent process to end',
      () => isProcessAlive({ pid }),
      (alive) => !alive,
    );
    const result = await reconcileAll({ ...deps, policy: { ...deps.policy, missingInstanceGraceMs: 60_000 } });
    expect(result.missing).toEqual([]);
    expect((await machine(id)).instanceStatus.current).toBe('running');
  });
});

describe('dead agents (a provider that restarts them in place: local)', () => {
  const killAgent = async (id: string) => {
    const pid = readRecord(machineDirOf(dataDir, id))!.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'the agent process to end',
      () => isProcessAlive({ pid }),
      (alive) => !alive,
    );
    return pid;
  };

  it('a killed agent is started again: same instance, same credential, not marked missing', async () => {
    const revivable = provisionerDeps(store, local, queues);
    const id = await addMachine();
    await reconcileMachine(revivable, id);
    const pid = await killAgent(id);
    const result = await reconcileAll(revivable);
    expect(result).toMatchObject({ revived: [id], missing: [], failures: [] });
    const [alive] = liveAgentPids(dataDir);
    expect(alive).toBeDefined();
    expect(alive).not.toBe(pid);
    expect((await machine(id)).instanceId).toBe(instanceIdOf(id));
    expect((await machine(id)).instanceStatus.current).toBe('running');
    const credential = await revivable.credentials!.forAttempt({ model: store.model, machineId: id, attempt: 0 });
    expect(await agentCredentialDigest(machineDirOf(dataDir, id))).toBe(digestOf(credential));
    expect(verifyAgentCredential((await machine(id)).agentCredentialHash, credential)).toBe(true);
    // Nothing is dead any more: the next look does nothing.
    expect(await reviveAgents(revivable)).toEqual({ revived: [], refused: [], newlyRefused: [], failures: [] });
  });

  it("a killed agent of another model is started again in its own model, with that model's key; `default`'s machine 0 is left alone", async () => {
    const revivable = provisionerDeps(store, local, queues);
    const other = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    const [a] = (await addMachines(store)) as [string];
    const [b] = (await addMachines(other)) as [string];
    await reconcileMachine(revivable, a);
    await reconcileMachine({ ...revivable, store: other }, b);
    const untouched = readRecord(machineDirOf(dataDir, a))!.pid;
    const pid = readRecord(machineDirOf(dataDir, b, other.model))!.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'the agent process to end',
      () => isProcessAlive({ pid }),
      (alive) => !alive,
    );
    expect(await reconcileAll(revivable)).toMatchObject({ revived: [`${other.model}:${b}`], missing: [], strays: [], failures: [] });
    const revived = readRecord(machineDirOf(dataDir, b, other.model))!;
    expect(revived.pid).not.toBe(pid);
    expect(isProcessAlive(revived)).toBe(true);
    expect(readRecord(machineDirOf(dataDir, a))!.pid).toBe(untouched);
    const credential = await revivable.credentials!.forAttempt({ model: other.model, machineId: b, attempt: 0 });
    expect(verifyAgentCredential((await getMachine(other, b))!.agentCredentialHash, credential)).toBe(true);
    expect(await agentCredentialDigest(machineDirOf(dataDir, b, other.model))).toBe(digestOf(credential));
  });

  it('an agent in its restart back-off shows it in the machine status, and running again once restarted', async () => {
    const crashing = localProvider(dataDir, {
      env: { FAKE_AGENT_EXIT_CODE: '1' },
      restartPolicy: { stableRunMs: 60_000, immediateRestarts: 0, firstDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const revivable = provisionerDeps(store, crashing, queues);
    const id = await addMachine();
    await reconcileMachine(revivable, id);
    await waitFor(
      'every agent process to end',
      () => liveAgentPids(dataDir).length,
      (n) => n === 0,
    );
    const result = await reconcileAll(revivable);
    expect(result.revived).toEqual([]);
    expect(result.missing).toEqual([]);
    const status = (await machine(id)).instanceStatus;
    expect(status.current).toBe('error');
    expect(status.message).toMatch(/^machine agent exited 1 times in a row within 60 s of starting; next start at /);
    expect((await readStatus(store)).machines[id]).toMatchObject({ 'machine-status': { current: 'error', message: status.message } });
    // Repeated looks change nothing while it waits.
    expect(await reviveAgents(revivable)).toMatchObject({ refused: [{ machineId: id, reason: status.message }], newlyRefused: [] });
    expect((await machine(id)).instanceStatus.since).toBe(status.since);
    // retry-provisioning accepts it: a new attempt, started at once.
    await retryProvisioning(store, id);
    expect((await machine(id)).instanceId).toBeUndefined();
    expect(await reconcileMachine(deps, id)).toBe('started');
    expect((await machine(id)).instanceStatus.current).toBe('running');
    expect((await machine(id)).instanceId).toBe(instanceIdOf(id, 1));
  });

  it('retry-provisioning accepts a machine whose instance went missing, and it is provisioned again', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    await killAgent(id);
    await new Promise((r) => setTimeout(r, 5)); // recorded strictly before the listing
    expect((await reconcileAll(deps)).missing).toEqual([id]); // a provider that cannot revive
    await retryProvisioning(store, id);
    expect(await machine(id)).toMatchObject({ provisioningAttempt: 1, instanceStatus: { current: 'pending' } });
    expect(await reconcileMachine(deps, id)).toBe('started');
    expect(await machine(id)).toMatchObject({ instanceId: instanceIdOf(id, 1), instanceStatus: { current: 'running' } });
    expect(liveAgentPids(dataDir)).toHaveLength(1);
  });

  it("a Dead machine's dead agent is left to the reconcile, which removes the machine", async () => {
    const revivable = provisionerDeps(store, local, queues);
    const id = await addMachine();
    await reconcileMachine(revivable, id);
    await destroyMachine(store, id);
    await ensureMachineDead(store, id);
    await killAgent(id);
    expect((await reviveAgents(revivable)).revived).toEqual([]);
    expect(liveAgentPids(dataDir)).toEqual([]);
    expect((await reconcileAll(revivable)).outcomes).toMatchObject({ removed: 1 });
  });
});

describe('the stream handler', () => {
  let sequence = 0;
  const machineRecord = (m: Machine, eventName: 'INSERT' | 'MODIFY' | 'REMOVE' = 'MODIFY', model = store.model): DynamoDBRecord => {
    const image = marshall(toItem(model, refs.machine(m.id), { ...m }), { removeUndefinedValues: true });
    return {
      eventName,
      eventSource: 'aws:dynamodb',
      dynamodb: {
        Keys: marshall(keyOf(model, refs.machine(m.id))) as never,
        ...(eventName === 'REMOVE' ? { OldImage: image as never } : { NewImage: image as never }),
        SequenceNumber: String(++sequence).padStart(21, '0'),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
  };

  it('provisions the machines of a batch, and a batch delivered twice leaves one instance each', async () => {
    const [a, b] = (await addMachines(store, { count: 2 })) as [string, string];
    const records = [machineRecord(await machine(a), 'INSERT'), machineRecord(await machine(b), 'INSERT'), machineRecord(await machine(a))];
    const handler = createProvisionerHandler(deps);
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    expect((await local.listInstances(CONTROLLER_ID)).map((i) => i.machineId).sort()).toEqual([a, b].sort());
    expect(liveAgentPids(dataDir)).toHaveLength(2);
    expect(provider.startCalls).toBe(2);
  });

  it("reports only the failed machines' records, by sequence number", async () => {
    const [a, b] = (await addMachines(store, { count: 2 })) as [string, string];
    queues.failing.add(b);
    const records = [machineRecord(await machine(a)), machineRecord(await machine(b)), machineRecord(await machine(b))];
    const response = await createProvisionerHandler(deps)({ Records: records });
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      records[1]!.dynamodb!.SequenceNumber,
      records[2]!.dynamodb!.SequenceNumber,
    ]);
    expect((await machine(a)).instanceId).toBe(instanceIdOf(a));
  });

  it('ignores records of other kinds, and of a machine its model does not have', async () => {
    const id = await addMachine();
    const other = machineRecord(await machine(id), 'INSERT', 'other-model');
    const app: DynamoDBRecord = {
      eventName: 'INSERT',
      dynamodb: {
        Keys: marshall(keyOf(store.model, refs.application('wp'))) as never,
        NewImage: marshall(toItem(store.model, refs.application('wp'), { name: 'wp' })) as never,
        SequenceNumber: '1',
      },
    };
    expect(await createProvisionerHandler(deps)({ Records: [other, app] })).toEqual({ batchItemFailures: [] });
    expect(provider.startCalls).toBe(0);
  });

  it('provisions machine 0 of each model a batch names, each in its own model: two agents, two queues', async () => {
    const other = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    const [a] = (await addMachines(store)) as [string];
    const [b] = (await addMachines(other)) as [string];
    expect(b).toBe(a);
    const records = [machineRecord(await machine(a), 'INSERT'), machineRecord((await getMachine(other, b))!, 'INSERT', other.model)];
    expect(await createProvisionerHandler(deps)({ Records: records })).toEqual({ batchItemFailures: [] });
    expect((await machine(a)).instanceId).toBe(instanceIdOf(a));
    expect((await getMachine(other, b))!.instanceId).toBe(`local-${CONTROLLER_ID}-${other.model}-${b}-0`);
    expect(liveAgentPids(dataDir)).toHaveLength(2);
    expect(await queues.exists(a)).toBe(true);
    expect(await queues.exists(b, other.model)).toBe(true);
  });

  it('a removal record deletes the queue of the removed machine', async () => {
    const id = await addMachine();
    await reconcileMachine(deps, id);
    const last = await machine(id);
    await destroyMachine(store, id);
    await ensureMachineDead(store, id);
    // Removed, but this provisioner's queue call went elsewhere (queues of another controller id).
    await reconcileMachine({ ...deps, queues: new TestQueues(sqs.client()) }, id);
    expect(await queues.exists(id)).toBe(true);
    await createProvisionerHandler(deps)({ Records: [machineRecord(last, 'REMOVE')] });
    expect(await queues.exists(id)).toBe(false);
  });

  it('the schedule runs the full reconcile', async () => {
    const id = await addMachine();
    expect(await createReconcileHandler(deps)()).toMatchObject({ machines: 1, outcomes: { started: 1 } });
    expect((await machine(id)).instanceId).toBe(instanceIdOf(id));
  });
});
