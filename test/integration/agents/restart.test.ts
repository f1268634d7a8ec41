// docs/reliability.md, defect #5: a machine agent killed with `kill -9` while a hook runs. The local provider
// starts it again (same instance, credential and machine directory), the new agent kills the hook
// the dead one left running, and the unit shows the interrupted hook as failed, as Juju's uniter
// does after a crash, instead of "running install hook" forever; `resolved` then runs it again and
// the unit converges.
import { join } from 'node:path';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProvider } from '#shared/provider/local/local-provider.js';
import { readRecord } from '#shared/provider/local/machine-dir.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import type { ProvisionerDeps } from '#shared/provisioner/deps.js';
import { reconcileAll } from '#shared/provisioner/reconcile-all.js';
import { reconcileMachine } from '#shared/provisioner/reconcile-machine.js';
import { sqsMachineQueues } from '#shared/provisioner/sqs-machine-queues.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { resolveUnit } from '#shared/state/operations/resolve-unit.js';
import { CONTROLLER, hookLog, hookNames, startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
let provider: LocalProvider;
let deps: ProvisionerDeps;
beforeAll(async () => {
  h = await startAgentHarness();
  provider = new LocalProvider({
    dataDir: h.dataDir,
    agentCommand: h.agentCommand,
    env: { DROVER_SQS_ENDPOINT: h.sqsEndpoint, AWS_REGION: 'us-east-1', DROVER_HOST_ADDRESS: '127.0.0.1' },
    stopGraceMs: 2_000,
  });
  deps = {
    store: h.store,
    provider,
    queues: sqsMachineQueues(h.sqs, CONTROLLER),
    credentials: h.agentKeys,
    controllerId: CONTROLLER,
    apiUrl: h.api.url,
    policy: { missingInstanceGraceMs: 0 },
  };
});
afterAll(async () => {
  await provider?.shutDownAgents(CONTROLLER);
  await h?.stop();
});

describe('a machine agent killed mid-hook under the local provider', () => {
  it('is started again, its left-over hook is killed, and its unit converges after `resolved`', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-restart' });
    const [machine, unit] = [machines[0]!, units[0]!];
    const gate = join(h.gatesDir(machine), 'hang-install');
    writeFileSync(gate, '');
    expect(await reconcileMachine(deps, machine)).toBe('started');
    await waitFor('install to hang', () => existsSync(join(h.gatesDir(machine), `hanging-${unit.replace('/', '-')}-install`)), Boolean);
    expect((await unitOf(h, unit))?.agentStatus).toMatchObject({ current: 'executing', message: 'running install hook' });
    const dir = h.machineDir(machine);
    const first = readRecord(dir)!;
    const [hook] = readdirSync(join(dir, 'running-hooks')).map(Number);

    process.kill(first.pid, 'SIGKILL'); // the agent alone, as `kill -9 <pid>`
    await waitFor(
      'the agent to die',
      () => isProcessAlive(first),
      (alive) => !alive,
    );
    expect(isProcessAlive({ pid: hook! })).toBe(true);

    const result = await reconcileAll(deps);
    expect(result).toMatchObject({ revived: [machine], missing: [], failures: [] });
    const second = readRecord(dir)!;
    expect(second.pid).not.toBe(first.pid);
    expect(second.instanceId).toBe(first.instanceId);
    expect((await getMachine(h.store, machine))?.instanceStatus.current).toBe('running');

    // The new agent authenticates (same derived credential), kills the hook, and reports it failed.
    const u = await waitFor(
      'the interrupted hook to show as failed',
      () => unitOf(h, unit),
      (x) => x?.agentStatus.current === 'error',
    );
    expect(u?.agentStatus.message).toBe('hook failed: "install"');
    await waitFor(
      'the hook left running to be killed',
      () => isProcessAlive({ pid: hook! }),
      (alive) => !alive,
      5_000,
    );

    rmSync(gate);
    await resolveUnit(h.store, unit, 'retry-hooks');
    await waitFor(
      'the unit to go idle',
      () => unitOf(h, unit),
      (x) => x?.agentStatus.current === 'idle',
    );
    expect(hookNames(hookLog(h, machine, unit))).toEqual(['install', 'config-changed', 'start']);
  }, 90_000);
});
