// The machine and unit agents end to end, against the real API, queues and stream handlers:
// charms-in-action.txt "Unit hooks", "Execution environment", "Errors in hooks", and the agents'
// duties in lifecycles.txt.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { resolveUnit } from '#shared/state/operations/resolve-unit.js';
import { readStatusLog } from '#shared/state/queries/status-log.js';
import { hookLog, hookNames, startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(async () => {
  await h?.stop();
});

const started = (machine: string, unit: string) =>
  waitFor(
    `${unit} started`,
    () => hookLog(h, machine, unit),
    (l) => hookNames(l).includes('start'),
  );
const agentStatus = (unit: string, current: string) =>
  waitFor(
    `${unit} agent ${current}`,
    () => unitOf(h, unit),
    (u) => u?.agentStatus.current === current,
  );

describe('a deployed unit', () => {
  it('runs install, then config-changed, then start, and goes idle with the status its charm set', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-a' });
    const [machine, unit] = [machines[0]!, units[0]!];
    await h.startAgent(machine);
    expect(hookNames(await started(machine, unit))).toEqual(['install', 'config-changed', 'start']);
    const u = await agentStatus(unit, 'idle');
    expect(u?.workloadStatus).toMatchObject({ current: 'active', message: 'ready' });
    // show-status-log: every status the agent set, in order, as Juju's uniter sets each one
    // (batched into reports, none merged away: docs/agents.md, "Reports").
    const history = (await readStatusLog(h.store, unit, { limit: 50 })).map((e) => `${e.type}: ${e.status} ${e.message ?? ''}`.trim());
    expect(history).toEqual([
      'juju-unit: executing running install hook',
      'workload: maintenance installing charm software',
      'juju-unit: executing running leader-elected hook',
      'juju-unit: executing running config-changed hook',
      'juju-unit: executing running start hook',
      'workload: active ready',
      'juju-unit: idle',
    ]);
    // open-port, committed when start succeeded
    expect(u?.openPorts).toEqual(['5432/tcp']);
    // The hook environment (charms-in-action.txt, "Execution environment").
    const env = readFileSync(join(h.unitDir(machine, unit), 'env-install'), 'utf8');
    const charmDir = join(h.unitDir(machine, unit), 'charm');
    expect(env).toContain(`CHARM_DIR=${charmDir}\n`);
    expect(env).toContain(`JUJU_CHARM_DIR=${charmDir}\n`);
    expect(env).toContain(`JUJU_UNIT_NAME=${unit}\n`);
    expect(env).toMatch(new RegExp(`JUJU_CONTEXT_ID=${unit}-install-\\d+\\n`));
    expect(env).toMatch(/JUJU_AGENT_SOCKET=\S+\n/);
    expect(env).toMatch(/JUJU_API_ADDRESSES=127\.0\.0\.1:\d+\n/);
    expect(env).toContain('JUJU_ENV_NAME=default\n');
    expect(env).toContain('JUJU_MODEL_NAME=default\n');
    expect(env).toContain('JUJU_HOOK_NAME=install\n');
    expect(env).toContain(`JUJU_MACHINE_ID=${machine}\n`);
    expect(env).toMatch(new RegExp(`PATH=${join(h.machineDir(machine), 'tools')}:`));
    expect(env).not.toContain('DROVER_AGENT_CREDENTIAL');
  });

  it('an idle agent makes no API requests', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-idle' });
    const [machine, unit] = [machines[0]!, units[0]!];
    await h.startAgent(machine);
    await started(machine, unit);
    await agentStatus(unit, 'idle');
    await h.drain();
    await new Promise((r) => setTimeout(r, 1_000)); // the echoes of its own last changes settle
    const before = h.agentRequests(machine);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(h.agentRequests(machine)).toBe(before);
  });

  it('hook output and juju-log reach the controller log that debug-log reads', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-log' });
    const [machine, unit] = [machines[0]!, units[0]!];
    await h.startAgent(machine);
    await started(machine, unit);
    const entity = `unit-${unit.replace('/', '-')}`;
    const page = await waitFor(
      'the log',
      () => h.logs.read({ include: [entity], limit: 1000 }),
      (p) => p.records.some((r) => r.message.includes('ran "start" hook')),
    );
    expect(page.records.map((r) => r.entity)).toEqual(page.records.map(() => entity));
    expect(page.records).toContainEqual(
      expect.objectContaining({
        level: 'INFO',
        module: 'juju.worker.uniter.operation',
        message: 'ran "install" hook (via explicit, bespoke hook script)',
      }),
    );
  });

  it('hooks of units on one machine never run at the same time (the machine-wide hook lock)', async () => {
    const first = await h.deployCharm('database', { name: 'db-lock' });
    const machine = first.machines[0]!;
    const second = await h.deployCharm('client', { name: 'client-lock', to: [machine] });
    const gate = join(h.gatesDir(machine), `hang-${first.units[0]!.replace('/', '-')}-install`);
    writeFileSync(gate, '');
    await h.startAgent(machine);
    await waitFor(
      'install to hang',
      () => existsSync(join(h.gatesDir(machine), `hanging-${first.units[0]!.replace('/', '-')}-install`)),
      Boolean,
    );
    const before = hookLog(h, machine, second.units[0]!);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hookLog(h, machine, second.units[0]!)).toEqual(before);
    rmSync(gate);
    await started(machine, first.units[0]!);
    await started(machine, second.units[0]!);
  });

  it('runs config-changed when its application configuration changes', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-b' });
    const [machine, unit] = [machines[0]!, units[0]!];
    await h.startAgent(machine);
    await started(machine, unit);
    await setApplicationConfig(h.store, 'db-b', { set: { 'db-name': 'orders' } });
    const lines = await waitFor(
      'config-changed',
      () => hookLog(h, machine, unit),
      (l) => l.some((x) => x.includes('db-name=orders')),
    );
    expect(hookNames(lines)).toEqual(['install', 'config-changed', 'start', 'config-changed']);
  });

  it('on a failing hook enters an error state, awaits resolution, and after `resolved` runs the hook again and continues', async () => {
    const { machines, units } = await h.deployCharm('flaky');
    const [machine, unit] = [machines[0]!, units[0]!];
    await h.startAgent(machine);
    const failed = await agentStatus(unit, 'error');
    expect(failed?.agentStatus).toMatchObject({ message: 'hook failed: "install"', data: { hook: 'install' } });
    expect(hookNames(hookLog(h, machine, unit))).toEqual(['install']);
    writeFileSync(join(h.gatesDir(machine), 'allow-install'), '');
    await resolveUnit(h.store, unit, 'retry-hooks');
    const lines = await started(machine, unit);
    expect(hookNames(lines)).toEqual(['install', 'install', 'config-changed', 'start']);
    const u = await agentStatus(unit, 'idle');
    expect(u?.resolved).toBeUndefined();
  });

  it('`resolved --no-retry` treats the failed hook as done and goes on to the next', async () => {
    const { machines, units } = await h.deployCharm('flaky', { name: 'flaky-b' });
    const [machine, unit] = [machines[0]!, units[0]!];
    await h.startAgent(machine);
    await agentStatus(unit, 'error');
    await resolveUnit(h.store, unit, 'no-hooks');
    const lines = await started(machine, unit);
    expect(hookNames(lines)).toEqual(['install', 'config-changed', 'start']);
  });

  it('an agent killed while a hook runs treats that hook as failed when it comes back', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-c' });
    const [machine, unit] = [machines[0]!, units[0]!];
    const gate = join(h.gatesDir(machine), 'hang-config-changed');
    writeFileSync(gate, '');
    const agent = await h.startAgent(machine);
    await waitFor(
      'config-changed to hang',
      () => existsSync(join(h.gatesDir(machine), `hanging-${unit.replace('/', '-')}-config-changed`)),
      Boolean,
    );
    // The hook runs in a process group of its own, recorded for the next agent.
    const [hook] = readdirSync(join(h.machineDir(machine), 'running-hooks')).map(Number);
    expect(isProcessAlive({ pid: hook! })).toBe(true);
    await agent.kill();
    // Killed with the agent alone, it runs on, parentless...
    expect(isProcessAlive({ pid: hook! })).toBe(true);
    await h.startAgent(machine);
    const u = await agentStatus(unit, 'error');
    expect(u?.agentStatus.message).toBe('hook failed: "config-changed"');
    // ...until the next agent on the machine kills it, before its units run again: the gate is
    // gone now, and a hook left running would go on to log its run.
    await waitFor(
      'the hook left running to be killed',
      () => isProcessAlive({ pid: hook! }),
      (alive) => !alive,
      5_000,
    );
    rmSync(gate);
    await resolveUnit(h.store, unit, 'retry-hooks');
    const lines = await started(machine, unit);
    expect(hookNames(lines)).toEqual(['install', 'config-changed', 'start']);
  });

  it('remove-unit: the Dying unit runs stop, sets itself Dead, and its machine agent removes it', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-d' });
    const [machine, unit] = [machines[0]!, units[0]!];
    await h.startAgent(machine);
    await started(machine, unit);
    await destroyUnit(h.store, unit);
    await waitFor(
      `${unit} removed`,
      () => unitOf(h, unit),
      (u) => u === undefined,
    );
    expect(existsSync(h.unitDir(machine, unit))).toBe(false);
    // The unit directory went with it; the controller's log keeps what its hooks did.
    // Log lines are shipped asynchronously: the unit can be gone before its last line lands.
    const ranHooks = async () =>
      (await h.logs.read({ include: [unit], limit: 1000 })).records.map((r) => /^ran "(\S+)" hook/.exec(r.message)?.[1]).filter(Boolean);
    const ran = await waitFor('the stop hook in the log', ranHooks, (hooks) => hooks.includes('stop'));
    expect(ran).toEqual(['install', 'config-changed', 'start', 'stop']);
  });

  it('remove-machine: the agent sets its Dying machine Dead, exits, and will not run again', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-e' });
    const [machine, unit] = [machines[0]!, units[0]!];
    const agent = await h.startAgent(machine);
    await started(machine, unit);
    await destroyUnit(h.store, unit);
    await waitFor(
      `${unit} removed`,
      () => unitOf(h, unit),
      (u) => u === undefined,
    );
    await destroyMachine(h.store, machine);
    expect(await agent.exited).toBe(0);
    expect((await getMachine(h.store, machine))?.life).toBe('dead');
    const again = await h.startAgent(machine);
    expect(await again.exited).toBe(0);
  });
});
