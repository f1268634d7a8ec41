import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { machineDirOf, readRecord } from '#shared/provider/local/machine-dir.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { ProviderError, type StartInstanceRequest } from '#shared/provider/provider.js';
import { digestOf, heartbeatOf, killAllAgents, liveAgentPids, localProvider, tempDataDir } from '../support/local-agents.js';
import { waitFor } from '../support/wait-for.js';

const CONTROLLER = 'ctl1';

const request = (machineId: string, attempt = 0, overrides: Partial<StartInstanceRequest> = {}): StartInstanceRequest => ({
  controllerId: CONTROLLER,
  model: 'default',
  machineId,
  attempt,
  series: 'jammy',
  constraints: {},
  agent: { apiUrl: 'http://127.0.0.1:1/api', credential: `secret-${machineId}-${attempt}`, queueUrl: `http://sqs.local/q-${machineId}` },
  ...overrides,
});

const isAlive = (pid: number) => isProcessAlive({ pid });

let dataDir: string;
beforeEach(() => {
  dataDir = tempDataDir();
});
afterEach(async () => {
  await killAllAgents(dataDir);
});

describe('local provider', () => {
  it("tells machine 1 of another model from `default`'s: its own directory, instance id, agent and model", async () => {
    const provider = localProvider(dataDir);
    const model = '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70';
    const inDefault = await provider.startInstance(request('1'));
    const inOther = await provider.startInstance(request('1', 0, { model }));
    expect(inDefault).toMatchObject({ instanceId: `local-${CONTROLLER}-1-0`, model: 'default', machineId: '1' });
    expect(inOther).toMatchObject({ instanceId: `local-${CONTROLLER}-${model}-1-0`, model, machineId: '1' });
    const [a, b] = [readRecord(machineDirOf(dataDir, '1'))!, readRecord(machineDirOf(dataDir, '1', model))!];
    expect(machineDirOf(dataDir, '1', model)).not.toBe(machineDirOf(dataDir, '1'));
    expect(a.pid).not.toBe(b.pid);
    expect(isAlive(a.pid) && isAlive(b.pid)).toBe(true);
    expect(b.model).toBe(model);
    expect(readFileSync(`/proc/${b.pid}/environ`, 'utf8')).toContain(`DROVER_MODEL=${model}`);
    expect((await provider.listInstances(CONTROLLER)).map((i) => i.instanceId).sort()).toEqual(
      [inDefault.instanceId, inOther.instanceId].sort(),
    );
    // Each start of the same attempt is answered with its own model's agent, and stopping one leaves the other.
    expect((await provider.startInstance(request('1', 0, { model }))).instanceId).toBe(inOther.instanceId);
    await provider.stopInstances([inOther.instanceId]);
    expect(isAlive(b.pid)).toBe(false);
    expect((await provider.listInstances(CONTROLLER)).map((i) => i.instanceId)).toEqual([inDefault.instanceId]);
  });

  it('starts a machine agent process that is alive and listed', async () => {
    const provider = localProvider(dataDir);
    const info = await provider.startInstance(request('1'));
    expect(info).toMatchObject({ instanceId: `local-${CONTROLLER}-1-0`, machineId: '1', state: 'running', addresses: ['127.0.0.1'] });
    const dir = machineDirOf(dataDir, '1');
    const record = readRecord(dir)!;
    expect(isAlive(record.pid)).toBe(true);
    expect(await provider.listInstances(CONTROLLER)).toEqual([info]);
    // The agent runs with its identity, API, queue and credential (on its standard input only).
    const beat = await waitFor(
      'a heartbeat from the agent',
      () => heartbeatOf(dir),
      (b) => b !== undefined,
    );
    expect(beat).toMatchObject({
      pid: record.pid,
      machineId: '1',
      controllerId: CONTROLLER,
      queueUrl: 'http://sqs.local/q-1',
      credentialDigest: digestOf('secret-1-0'),
    });
    expect(existsSync(join(dir, 'credential'))).toBe(false);
    // Not in its environment either, where any process of this user reads it.
    const environ = readFileSync(`/proc/${record.pid}/environ`, 'utf8');
    expect(environ).toContain('DROVER_MACHINE_ID=1');
    expect(environ).not.toContain('secret-1-0');
    expect(readFileSync(join(dir, 'agent.log'), 'utf8')).toContain('fake agent');
  });

  it("does not pass the controller's own environment to agents", async () => {
    process.env.DROVER_TEST_CONTROLLER_SECRET = 'controller-only';
    try {
      await localProvider(dataDir).startInstance(request('1'));
    } finally {
      delete process.env.DROVER_TEST_CONTROLLER_SECRET;
    }
    const beat = await waitFor(
      'a heartbeat from the agent',
      () => heartbeatOf(machineDirOf(dataDir, '1')),
      (b) => b !== undefined,
    );
    expect(beat?.inheritedSecret).toBeNull();
  });

  it('starting the same machine and attempt again returns the same instance, with one process', async () => {
    const provider = localProvider(dataDir);
    const first = await provider.startInstance(request('1'));
    const again = await provider.startInstance(request('1'));
    expect(again.instanceId).toBe(first.instanceId);
    expect(liveAgentPids(dataDir)).toHaveLength(1);
  });

  it('concurrent starts of the same machine and attempt spawn one process', async () => {
    const a = localProvider(dataDir);
    const b = localProvider(dataDir);
    const infos = await Promise.all([a.startInstance(request('1')), b.startInstance(request('1')), a.startInstance(request('1'))]);
    expect(new Set(infos.map((i) => i.instanceId)).size).toBe(1);
    expect(liveAgentPids(dataDir)).toHaveLength(1);
  });

  it('a new attempt replaces the unrecorded agent of an earlier one', async () => {
    const provider = localProvider(dataDir);
    await provider.startInstance(request('1', 0));
    const oldPid = readRecord(machineDirOf(dataDir, '1'))!.pid;
    const next = await provider.startInstance(request('1', 1));
    expect(next.instanceId).toBe(`local-${CONTROLLER}-1-1`);
    expect(isAlive(oldPid)).toBe(false);
    expect((await provider.listInstances(CONTROLLER)).map((i) => i.instanceId)).toEqual([next.instanceId]);
  });

  it('an old attempt never replaces a later one', async () => {
    const provider = localProvider(dataDir);
    await provider.startInstance(request('1', 2));
    const error = await provider.startInstance(request('1', 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).transient).toBe(false);
    expect((await provider.listInstances(CONTROLLER)).map((i) => i.instanceId)).toEqual([`local-${CONTROLLER}-1-2`]);
  });

  it('stopping an instance ends its process and removes its directory; unknown ids are ignored', async () => {
    const provider = localProvider(dataDir);
    const info = await provider.startInstance(request('1'));
    const other = await provider.startInstance(request('2'));
    const pid = readRecord(machineDirOf(dataDir, '1'))!.pid;
    await provider.stopInstances([info.instanceId, 'local-ctl1-99-0', 'i-0123456789']);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(machineDirOf(dataDir, '1'))).toBe(false);
    expect(await provider.listInstances(CONTROLLER)).toEqual([other]);
    await provider.stopInstances([info.instanceId]); // again: already gone, no error
  });

  it('an agent that ignores SIGTERM is killed after the grace period', async () => {
    const provider = localProvider(dataDir, { env: { FAKE_AGENT_IGNORE_SIGTERM: '1' }, stopGraceMs: 200 });
    const info = await provider.startInstance(request('1'));
    const dir = machineDirOf(dataDir, '1');
    await waitFor(
      'a heartbeat from the agent',
      () => heartbeatOf(dir),
      (b) => b !== undefined,
    ); // its SIGTERM handler is installed
    const pid = readRecord(dir)!.pid;
    await provider.stopInstances([info.instanceId]);
    expect(isAlive(pid)).toBe(false);
  });

  it('a new provider on the same dataDir (a restarted controller) lists the live agents', async () => {
    const info = await localProvider(dataDir).startInstance(request('1'));
    const restarted = localProvider(dataDir);
    expect(await restarted.listInstances(CONTROLLER)).toEqual([info]);
    // ...and can stop them.
    await restarted.stopInstances([info.instanceId]);
    expect(liveAgentPids(dataDir)).toEqual([]);
  });

  it('lists only live agents of the asking controller', async () => {
    const provider = localProvider(dataDir);
    await provider.startInstance(request('1'));
    await provider.startInstance(request('2', 0, { controllerId: 'ctl2' }));
    expect((await provider.listInstances(CONTROLLER)).map((i) => i.machineId)).toEqual(['1']);
    expect((await provider.listInstances('ctl2')).map((i) => i.machineId)).toEqual(['2']);
  });

  it('an agent that died is not listed, and starting its machine again starts a new process', async () => {
    const provider = localProvider(dataDir);
    await provider.startInstance(request('1'));
    const pid = readRecord(machineDirOf(dataDir, '1'))!.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'the agent process to end',
      () => isAlive(pid),
      (alive) => !alive,
    );
    expect(await provider.listInstances(CONTROLLER)).toEqual([]);
    await provider.startInstance(request('1'));
    expect(liveAgentPids(dataDir)).toHaveLength(1);
    expect(liveAgentPids(dataDir)[0]).not.toBe(pid);
  });

  it('a pid reused by another process is not mistaken for the agent', async () => {
    const provider = localProvider(dataDir);
    await provider.startInstance(request('1'));
    const record = readRecord(machineDirOf(dataDir, '1'))!;
    // The test runner's own pid, with the agent's start time: alive, but not our process.
    expect(isProcessAlive({ pid: process.pid, ...(record.startTime ? { startTime: record.startTime } : {}) })).toBe(
      record.startTime === undefined,
    );
  });

  it('a command that cannot be run is a non-transient provider error', async () => {
    const provider = localProvider(dataDir, { agentCommand: [join(dataDir, 'no-such-agent')] });
    const error = await provider.startInstance(request('1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).transient).toBe(false);
    expect(await provider.listInstances(CONTROLLER)).toEqual([]);
  });

  it("starting a dead agent's attempt again kills what is left of its process group first", async () => {
    const provider = localProvider(dataDir, { env: { FAKE_AGENT_CHILD: '1' } });
    await provider.startInstance(request('1'));
    const dir = machineDirOf(dataDir, '1');
    const beat = await waitFor(
      "a heartbeat naming the agent's child process",
      () => heartbeatOf(dir),
      (b) => typeof b?.childPid === 'number',
    );
    const child = beat!.childPid as number;
    const agent = readRecord(dir)!.pid;
    process.kill(agent, 'SIGKILL'); // the agent alone: its child runs on, as a hook would
    await waitFor(
      'the agent process to end',
      () => isAlive(agent),
      (alive) => !alive,
    );
    expect(isAlive(child)).toBe(true);
    expect((await provider.listDeadInstances(CONTROLLER)).map((i) => i.instanceId)).toEqual([`local-${CONTROLLER}-1-0`]);
    const again = await provider.startInstance(request('1'));
    expect(again.instanceId).toBe(`local-${CONTROLLER}-1-0`);
    expect(
      await waitFor(
        "the agent's child process to end",
        () => isAlive(child),
        (alive) => !alive,
      ),
    ).toBe(false);
    expect(await provider.listDeadInstances(CONTROLLER)).toEqual([]);
    expect(liveAgentPids(dataDir)).toHaveLength(1);
  });

  it('an agent that keeps dying right after it starts is started again only after a growing delay', async () => {
    const policy = { stableRunMs: 60_000, immediateRestarts: 1, firstDelayMs: 60_000, maxDelayMs: 120_000 };
    const provider = localProvider(dataDir, { env: { FAKE_AGENT_EXIT_CODE: '3' }, restartPolicy: policy });
    const dir = machineDirOf(dataDir, '1');
    const died = () =>
      waitFor(
        'the agent process to end',
        () => isProcessAlive(readRecord(dir)!),
        (alive) => !alive,
      );
    await provider.startInstance(request('1'));
    await died();
    // The first death in a row: started again at once.
    await provider.startInstance(request('1'));
    await died();
    // The second: refused until the delay has passed, saying why and when, however often asked.
    for (let i = 0; i < 2; i++) {
      const error = await provider.startInstance(request('1')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).transient).toBe(true);
      expect((error as ProviderError).message).toMatch(
        /^machine agent exited 2 times in a row within 60 s of starting; next start at \S+Z \(see .*agent\.log\)$/,
      );
    }
    expect(readFileSync(join(dir, 'agent.log'), 'utf8')).toContain('exiting at once');
    // A new attempt (retry-provisioning) starts afresh, with no delay.
    await provider.startInstance(request('1', 1));
    expect(readRecord(dir)?.attempt).toBe(1);
  });
});
