// `drover status` in its three formats against golden files (a fixed clock makes every timestamp
// stable), selectors, --relations, --watch, and the show-* views. The model is built through the
// CLI itself, with agent-side facts (instances, statuses, scopes) written as the agents and the
// provisioner would.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMachineAgentStatus, setUnitStatus } from '#shared/state/operations/agent-status.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { recordPresence } from '#shared/state/operations/presence.js';
import { recordInstance, recordProvisioningError } from '#shared/state/operations/provisioning.js';
import { charmDir, REPO, startCliController, type CliHarness } from '../support/cli.js';
import { expectGoldenFile } from '../support/golden.js';

const NOW = new Date('2024-01-02T10:11:02Z');
const GOLDEN = join(REPO, 'test', 'golden');

let ctl: CliHarness;

async function must(...args: string[]) {
  const res = await ctl.run(args);
  if (res.code !== 0) throw new Error(`drover ${args.join(' ')}: ${res.stderr}`);
  return res;
}

/**
 * wordpress/0 running with a logging subordinate; mysql/0 in error and Dying; mysql/1 on a
 * machine in provisioning error; blog held back by its required relation; the wordpress–mysql
 * relation Dying with wordpress/0 still in its scope.
 */
async function buildModel() {
  await must('deploy', charmDir('cli-wordpress'));
  await must('deploy', charmDir('cli-mysql'), '-n', '2');
  await must('deploy', charmDir('cli-logging'));
  await must('deploy', charmDir('cli-blog'));
  await must('relate', 'wordpress', 'mysql');
  await must('relate', 'wordpress', 'logging');
  await must('expose', 'wordpress');
  await must('set-constraints', 'mysql', 'mem=2G');

  const hardware = 'arch=amd64 cores=2 mem=4096M root-disk=8192M availability-zone=local-a';
  await recordInstance(ctl.store, '0', { instanceId: 'local-0', attempt: 0, hardware, addresses: ['10.0.0.10'] });
  await setMachineAgentStatus(ctl.store, '0', { current: 'started' });
  await recordInstance(ctl.store, '1', { instanceId: 'local-1', attempt: 0, hardware, addresses: ['10.0.0.11'] });
  await setMachineAgentStatus(ctl.store, '1', { current: 'started' });
  // The agents of machines 0 and 1 are talking (each agent API request records it).
  for (const machine of ['0', '1']) await recordPresence(ctl.store, machine, 0);
  // Leaders: status marks them (`leader: true`, `wordpress/0*`).
  await claimLeadership(ctl.store, 'wordpress/0', 330_000);
  await claimLeadership(ctl.store, 'mysql/1', 330_000);
  await recordProvisioningError(ctl.store, '2', {
    message: 'no instance types in local matching constraints "arch=amd64 mem=2048M"',
    transient: false,
    attempt: 0,
  });

  await setUnitStatus(ctl.store, 'wordpress/0', { agent: { current: 'idle' }, workload: { current: 'active', message: 'Ready' } });
  await enterScope(ctl.store, 'wordpress/0', 'wordpress:db mysql:server', {});
  await enterScope(ctl.store, 'wordpress/0', 'logging:logging-directory wordpress:logging-dir', {});
  await setUnitStatus(ctl.store, 'logging/0', { agent: { current: 'idle' }, workload: { current: 'active', message: 'shipping logs' } });
  await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'error', message: 'hook failed: "install"' } });
  await must('remove-unit', 'mysql/0');
  await must('remove-relation', 'wordpress', 'mysql');
}

beforeAll(async () => {
  ctl = await startCliController({ now: () => NOW });
  await buildModel();
});
afterAll(async () => {
  await ctl.close();
});

/** Compares with test/golden/<name>; a missing file fails (test/support/golden.ts). */
const expectGolden = (name: string, actual: string) => expectGoldenFile(GOLDEN, name, actual);

describe('status', () => {
  it('tabular: Model, App, Unit, Machine and Integration sections, subordinates indented, blocked-by for Dying', async () => {
    const res = await must('status', '--relations');
    await expectGolden('status.tabular.golden', res.stdout);
    expect(res.stdout).toMatch(/\n {2}logging\/0 +active +idle/);
    expect(res.stdout).toContain('dying, blocked by: its agent is in error (hook failed: "install"): run "drover resolved mysql/0"');
  });

  it("json: Juju 3.6's keys plus blocked-by", async () => {
    const res = await must('status', '--format', 'json');
    await expectGolden('status.json.golden', res.stdout);
    const doc = JSON.parse(res.stdout);
    expect(doc.applications.mysql.units['mysql/0']['juju-status']).toMatchObject({ current: 'idle', life: 'dying' });
    expect(doc.applications.wordpress.units['wordpress/0'].subordinates['logging/0']).toBeDefined();
    expect(doc.machines['2']['machine-status'].current).toBe('provisioning error');
  });

  it('yaml: the same document', async () => {
    const res = await must('status', '--format', 'yaml');
    await expectGolden('status.yaml.golden', res.stdout);
    const { parse } = await import('yaml');
    expect(parse(res.stdout)).toEqual(JSON.parse((await must('status', '--format', 'json')).stdout));
  });

  it('without --relations, no Integration section', async () => {
    expect((await must('status')).stdout).not.toContain('Integration provider');
  });

  it('selectors narrow to an application, a unit or a machine, with their context', async () => {
    const app = JSON.parse((await must('status', 'logging', '--format', 'json')).stdout);
    expect(Object.keys(app.applications).sort()).toEqual(['logging', 'wordpress']);
    expect(Object.keys(app.machines)).toEqual(['0']);

    const unit = JSON.parse((await must('status', 'mysql/1', '--format', 'json')).stdout);
    expect(Object.keys(unit.applications)).toEqual(['mysql']);
    expect(Object.keys(unit.applications.mysql.units)).toEqual(['mysql/1']);
    expect(Object.keys(unit.machines)).toEqual(['2']);

    const machine = JSON.parse((await must('status', '1', '--format', 'json')).stdout);
    expect(Object.keys(machine.applications)).toEqual(['mysql']);
    expect(Object.keys(machine.applications.mysql.units)).toEqual(['mysql/0']);

    const glob = JSON.parse((await must('status', 'mysql/*', '--format', 'json')).stdout);
    expect(Object.keys(glob.applications.mysql.units)).toEqual(['mysql/0', 'mysql/1']);
  });

  it('--watch redraws until interrupted', async () => {
    const stop = new AbortController();
    let draws = 0;
    const res = await ctl.run(['status', '--watch', '50ms'], {
      signal: stop.signal,
      onStdout: () => {
        if (++draws === 3) stop.abort();
      },
    });
    expect(res.code).toBe(0);
    expect(res.stdout.match(/^Model +Controller/gm)).toHaveLength(3);
  });

  it('colour only when asked for (or on a terminal), never with --no-color', async () => {
    expect((await must('status')).stdout).not.toContain('\x1b[');
    expect((await must('status', '--color')).stdout).toContain('\x1b[32mactive\x1b[0m');
  });

  it('bad flags are usage errors', async () => {
    const format = await ctl.run(['status', '--format', 'xml']);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/^ERROR option '--format <format>' argument 'xml' is invalid/);
    const watch = await ctl.run(['status', '--watch', 'soon']);
    expect(watch.code).toBe(2);
    expect(watch.stderr).toBe('ERROR invalid duration "soon": use a number with a unit, such as 5s, 1m or 500ms\n');
  });

  it('stuck shows the Dying unit and relation, and the machine in provisioning error, with why', async () => {
    const res = await must('stuck');
    expect(res.stdout).toContain('unit mysql/0');
    expect(res.stdout).toContain('run "drover retry-provisioning 2"');
  });
});

describe('agent presence', () => {
  /**
   * wordpress/0's agent on machine 0 talks; machine 1's agent fell silent with mysql/0 idle and
   * mysql/1 in error; mysql/2's machine was never provisioned.
   */
  async function buildSilentModel(c: CliHarness) {
    const run = async (...args: string[]) => {
      const res = await c.run(args);
      if (res.code !== 0) throw new Error(`drover ${args.join(' ')}: ${res.stderr}`);
    };
    await run('deploy', charmDir('cli-wordpress'));
    await run('deploy', charmDir('cli-mysql'), '-n', '2');
    await run('add-unit', 'mysql', '--to', '1');
    await run('add-machine');
    const hardware = 'arch=amd64 cores=2 mem=4096M root-disk=8192M availability-zone=local-a';
    for (const [machine, address] of [
      ['0', '10.0.0.10'],
      ['1', '10.0.0.11'],
    ] as const) {
      await recordInstance(c.store, machine, { instanceId: `local-${machine}`, attempt: 0, hardware, addresses: [address] });
      await setMachineAgentStatus(c.store, machine, { current: 'started' });
    }
    await setUnitStatus(c.store, 'wordpress/0', { agent: { current: 'idle' }, workload: { current: 'active', message: 'Ready' } });
    await setUnitStatus(c.store, 'mysql/0', { agent: { current: 'idle' }, workload: { current: 'active', message: 'serving' } });
    await setUnitStatus(c.store, 'mysql/2', {
      agent: { current: 'error', message: 'hook failed: "config-changed"' },
      workload: { current: 'active', message: 'serving' },
    });
    // Machine 0's agent spoke just now; machine 1's never since it started (or longer ago than the TTL).
    await recordPresence(c.store, '0', 0);
  }

  let silent: CliHarness;
  beforeAll(async () => {
    silent = await startCliController({ now: () => NOW });
    await buildSilentModel(silent);
  });
  afterAll(async () => {
    await silent.close();
  });

  it('tabular: a silent machine is down, its units lost, an error kept; a pending machine and allocating unit stay as they are', async () => {
    const res = await silent.run(['status']);
    expect(res.code).toBe(0);
    await expectGolden('status-presence.tabular.golden', res.stdout);
    expect(res.stdout).toMatch(/\nmysql\/0 +unknown +lost +1 .*agent lost, see 'drover show-status-log mysql\/0'\n/);
    expect(res.stdout).toMatch(/\nmysql\/2 +error +lost +1 .*hook failed: "config-changed"\n/);
    expect(res.stdout).toMatch(/\n1 +down +10\.0\.0\.11/);
  });

  it("yaml: Juju's lost and down, with the agent's message", async () => {
    const res = await silent.run(['status', '--format', 'yaml']);
    await expectGolden('status-presence.yaml.golden', res.stdout);
    const { parse } = await import('yaml');
    const doc = parse(res.stdout);
    expect(doc.machines['1']['juju-status']).toMatchObject({ current: 'down', message: 'agent is not communicating with the server' });
    expect(doc.machines['0']['juju-status']).toMatchObject({ current: 'started' });
    expect(doc.applications.mysql.units['mysql/0']['juju-status']).toMatchObject({
      current: 'lost',
      message: 'agent is not communicating with the server',
    });
  });
});

describe('an empty model', () => {
  it('says so, as Juju does', async () => {
    const empty = await startCliController({ now: () => NOW });
    try {
      const res = await empty.run(['status']);
      expect(res.stdout).toBe(
        'Model    Controller  Cloud/Region  Version  SLA          Timestamp\ndefault  test        drover        3.6.12   unsupported  10:11:02Z\n',
      );
      expect(res.stderr).toBe('\nModel "default" is empty.\n');
    } finally {
      await empty.close();
    }
  });
});
