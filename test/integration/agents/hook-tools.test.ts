// The hook tools beyond the relation tools, and update-status, through real agents against the real
// API, queues and stream handlers: test/charms/tools calls opened-ports, network-get, goal-state,
// application-version-set, state-get/set, credential-get, resource-get and juju-reboot and records
// what they print; its update-status sets what it already has, which must cost no API request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refs } from '#shared/domain/plan.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { getUnitState } from '#shared/state/engine/reads.js';
import { runOperation } from '#shared/state/engine/run-operation.js';
import { readStatus } from '#shared/state/queries/status.js';
import { setModelConfig } from '#shared/state/operations/model.js';
import { hookLog, hookNames, startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

const INTERVAL_MS = 2_000;
let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
  // Juju refuses an interval under 1m (test/e2e/cli-model-config.test.ts); the agents honour
  // whatever the model holds, so the test waits seconds rather than minutes.
  await runOperation(h.store, 'a short update-status interval', async () => ({
    changes: [{ op: 'update', ref: refs.model(), set: { config: { 'update-status-hook-interval': `${INTERVAL_MS / 1000}s` } } }],
    result: undefined,
  }));
});
afterAll(async () => {
  await h?.stop();
});

/** The tool calls a hook recorded: command line → {rc, output}. */
function toolRecord(machine: string, unit: string, hook: string): Record<string, { rc: number; output: string }> {
  const text = readFileSync(join(h.unitDir(machine, unit), `tools-${hook}`), 'utf8');
  const calls: Record<string, { rc: number; output: string }> = {};
  for (const block of text.split(/^== /m).filter(Boolean)) {
    const [head, ...rest] = block.split('\n');
    const m = /^(.*) rc=(\d+)$/.exec(head!)!;
    calls[m[1]!] = { rc: Number(m[2]), output: rest.join('\n') };
  }
  return calls;
}

async function startTools(name: string) {
  const { machines, units } = await h.deployCharm('tools', { name });
  const [machine, unit] = [machines[0]!, units[0]!];
  await h.startAgent(machine);
  await waitFor(
    `${unit} started`,
    () => hookLog(h, machine, unit),
    (l) => hookNames(l).includes('start'),
  );
  return { machine, unit };
}

describe('the other hook tools, from a charm', () => {
  it("print what Juju prints, and fail in Juju's words where drover has nothing", async () => {
    const { machine, unit } = await startTools('tools-a');
    const install = toolRecord(machine, unit, 'install');
    // state-get sees the hook's own state-set before it is committed.
    expect(install['state-get --format=json']).toEqual({ rc: 0, output: '{"counter":"0","greeting":"hello world"}\n' });
    expect(install['state-get greeting']).toEqual({ rc: 0, output: 'hello world\n' });
    expect(install['opened-ports']).toEqual({ rc: 0, output: '' });
    const network = JSON.parse(install['network-get website --format=json']!.output);
    const address = network['ingress-addresses'][0];
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // JSON without the YAML-only older spellings (address, macaddress, interfacename).
    expect(Object.keys(network['bind-addresses'][0].addresses[0])).toEqual(['hostname', 'value', 'cidr']);
    expect(network['bind-addresses'][0].addresses[0].value).toBe(address);
    expect(Object.keys(network['bind-addresses'][0])).toEqual(['mac-address', 'interface-name', 'addresses']);
    expect(network['egress-subnets']).toEqual([`${address}/32`]);
    expect(install['network-get website --ingress-address']).toEqual({ rc: 0, output: `${address}\n` });
    expect(install['network-get nowhere']).toEqual({ rc: 1, output: 'ERROR no network config found for binding "nowhere"\n' });
    const goal = JSON.parse(install['goal-state --format=json']!.output);
    expect(goal).toEqual({ units: { [unit]: { status: 'maintenance', since: expect.any(String) } }, relations: {} });
    expect(install['credential-get']).toEqual({ rc: 1, output: 'ERROR cannot access cloud credentials: permission denied\n' });
    expect(install['resource-get software']).toEqual({
      rc: 1,
      output: 'ERROR could not download resource: resource "software" not found\n',
    });
    expect(install['juju-reboot']!.rc).toBe(1);

    // start's opened-ports lists its own open-port calls, sorted as Juju sorts them.
    expect(toolRecord(machine, unit, 'start')['opened-ports']).toEqual({ rc: 0, output: '8080/tcp\n9000-9010/udp\n' });

    // Committed with the hooks: the state (install's, then config-changed's count) and the version.
    expect((await getUnitState(h.store, unit))?.state).toEqual({ counter: '1', greeting: 'hello world' });
    expect((await unitOf(h, unit))?.workloadVersion).toBe('1.2.3');
    expect((await readStatus(h.store)).applications['tools-a']).toMatchObject({ version: '1.2.3' });
  });

  it("a failing hook's state-set is never committed; its application-version-set, applied at once as in Juju, stands", async () => {
    const { machine, unit } = await startTools('tools-b');
    await setApplicationConfig(h.store, 'tools-b', { set: { note: 'fail' } });
    await waitFor(
      'config-changed to fail',
      () => hookLog(h, machine, unit),
      (l) => l.some((line) => line.includes('failed=yes')),
    );
    await waitFor(
      `${unit} in error`,
      () => unitOf(h, unit),
      (u) => u?.agentStatus.current === 'error',
    );
    // The hook saw its own change, and nobody else ever does.
    expect(toolRecord(machine, unit, 'config-changed')['state-get --format=json']!.output).toBe(
      '{"counter":"2","greeting":"hello world"}\n',
    );
    expect((await getUnitState(h.store, unit))?.state).toEqual({ counter: '1', greeting: 'hello world' });
    expect((await unitOf(h, unit))?.workloadVersion).toBe('2.0.0');
  });
});

describe('remove', () => {
  it("runs once after stop, as Juju 3's last hook; the unit's charm state goes with the unit", async () => {
    const { unit } = await startTools('tools-d');
    expect(await getUnitState(h.store, unit)).toBeDefined();
    await destroyUnit(h.store, unit);
    await waitFor(
      `${unit} removed`,
      () => unitOf(h, unit),
      (u) => u === undefined,
    );
    const ranHooks = async () =>
      (await h.logs.read({ include: [unit], limit: 1000 })).records.map((r) => /^ran "(\S+)" hook/.exec(r.message)?.[1]).filter(Boolean);
    const ran = await waitFor('the remove hook in the log', ranHooks, (hooks) => hooks.includes('remove'));
    expect(ran.slice(-2)).toEqual(['stop', 'remove']);
    expect(await getUnitState(h.store, unit)).toBeUndefined();
  });
});

describe('update-status', () => {
  it('runs every update-status-hook-interval, jittered, and setting what it already has costs no API request', async () => {
    const { machine, unit } = await startTools('tools-c');
    const updates = (n: number) =>
      waitFor(
        `${n} update-status hooks`,
        () => hookLog(h, machine, unit).filter((l) => l.startsWith('hook=update-status')),
        (l) => l.length >= n,
        20_000,
      );
    await updates(1);
    await h.drain();
    await new Promise((r) => setTimeout(r, 1_000)); // the echoes of its own last changes settle
    const before = h.agentRequests(machine);
    const seen = (await updates(1)).length;
    const lines = await updates(seen + 2);
    expect(h.agentRequests(machine)).toBe(before);

    const times = lines.map((l) => Number(/at=(\d+)/.exec(l)![1]));
    for (let i = 1; i < times.length; i++) {
      const gap = times[i]! - times[i - 1]!;
      expect(gap).toBeGreaterThanOrEqual(INTERVAL_MS * 0.8 - 100);
      expect(gap).toBeLessThanOrEqual(INTERVAL_MS * 1.2 + 1_500);
    }
    // Still idle and active: update-status leaves no trace in status.
    expect(await unitOf(h, unit)).toMatchObject({
      agentStatus: { current: 'idle' },
      workloadStatus: { current: 'active', message: 'ready' },
    });
  });
});

describe('model-config', () => {
  it('a change of update-status-hook-interval reaches running agents at once', async () => {
    const { machine, unit } = await startTools('tools-e');
    const count = () => hookLog(h, machine, unit).filter((l) => l.startsWith('hook=update-status')).length;
    await waitFor('an update-status', count, (n) => n >= 1);
    // Through the API's own rule (60m is within Juju's bounds): the notifier hints every machine.
    await setModelConfig(h.store, { set: { 'update-status-hook-interval': '60m' } });
    await h.drain();
    await new Promise((r) => setTimeout(r, 1_500)); // the hint arrives and the view is read again
    const after = count();
    await new Promise((r) => setTimeout(r, INTERVAL_MS * 2.5));
    expect(count()).toBe(after);
  });
});
