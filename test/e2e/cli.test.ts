// The drover CLI end to end against a real API over DynamoDB Local: every verb, with Juju's
// flags and messages, and every error path of docs/juju-compat.md's CLI rows (data on stdout, `ERROR <message>` on
// stderr, exit 1 on failure, 2 on usage errors).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { recordProvisioningError } from '#shared/state/operations/provisioning.js';
import { EXEC_ACTION } from '#shared/domain/operations.js';
import { IN_CALL_UNITS } from '#shared/domain/plans/background-units.js';
import { enqueueOperation, finishTask, logTask, startTask } from '#shared/state/operations/action-tasks.js';
import { getApplication, getMachine, getRelation, getUnit } from '#shared/state/engine/reads.js';
import { commitHookChanges } from '#shared/state/operations/commit-hook.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { charmDir, expectOk, expectError, startCliController, type CliHarness } from '../support/cli.js';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);

const fails = (code: number, args: string[], message: string | RegExp) => expectError(ctl, code, args, message);

describe('deploy', () => {
  it('deploys a charm directory and says so as Juju does', async () => {
    const res = await ok('deploy', charmDir('cli-mysql'));
    expect(res.stderr).toContain('Located local charm "mysql", revision 0\n');
    expect(res.stderr).toContain('Deploying "mysql" from local charm "mysql", revision 0 on ubuntu@22.04/stable\n');
    expect(res.stdout).toBe('');
    const app = await getApplication(ctl.store, 'mysql');
    expect(app).toMatchObject({ name: 'mysql', series: 'jammy', unitCount: 1 });
    // The charm directory travelled with the deployment, for the agents.
    expect(app?.charmArchive).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes a name, -n, --series, --constraints and --config', async () => {
    await ok(
      'deploy',
      charmDir('cli-mysql'),
      'db',
      '-n',
      '2',
      '--series',
      'focal',
      '--constraints',
      'mem=4G cores=2',
      '--config',
      'dataset-size=50%',
    );
    const app = await getApplication(ctl.store, 'db');
    expect(app).toMatchObject({ series: 'focal', unitCount: 2, config: { 'dataset-size': '50%' } });
    expect(app?.constraints).toMatchObject({ mem: 4096, cores: 2 });
  });

  it('--to places units on existing machines', async () => {
    await ok('add-machine', '-n', '2');
    await ok('deploy', charmDir('cli-mysql'), '-n', '2', '--to', '1,0');
    expect((await getUnit(ctl.store, 'mysql/0'))?.machine).toBe('1');
    expect((await getUnit(ctl.store, 'mysql/1'))?.machine).toBe('0');
  });

  it('says which required relations hold a deployment back', async () => {
    const res = await ok('deploy', charmDir('cli-blog'));
    expect(res.stderr).toContain('application "blog" will be deployed when its required relations are added: db (mysql)');
    await ok('deploy', charmDir('cli-mysql'));
    const relate = await ok('relate', 'blog', 'mysql');
    expect(relate.stderr).toBe('');
    expect((await getUnit(ctl.store, 'blog/0'))?.machine).toBeUndefined();
    await runAllCleanups(ctl.store); // the controller's cleanup assigns the units held back
    expect((await getUnit(ctl.store, 'blog/0'))?.machine).toBeDefined();
  });

  it('bad charm metadata fails before anything is sent', async () => {
    await fails(1, ['deploy', charmDir('cli-bad')], 'metadata.yaml: "provides.website.scope" must be "global" or "container"');
    expect(await getApplication(ctl.store, 'bad')).toBeUndefined();
  });

  it('a directory that is not a charm is refused', async () => {
    await fails(1, ['deploy', charmDir('no-such-charm')], /ERROR charm directory ".*no-such-charm" not found/);
    await fails(1, ['deploy', charmDir('')], /ERROR ".*charms\/?" is not a charm: metadata.yaml not found/);
  });

  it("bad constraints (mem=lots) are refused with Juju's message", async () => {
    await fails(
      1,
      ['deploy', charmDir('cli-mysql'), '--constraints', 'mem=lots'],
      'bad "mem" constraint: must be a non-negative float with optional M/G/T/P suffix',
    );
    expect(await getApplication(ctl.store, 'mysql')).toBeUndefined();
  });

  it('subordinates take no units, placement or constraints', async () => {
    await fails(1, ['deploy', charmDir('cli-logging'), '-n', '2'], 'cannot use --num-units or --to with subordinate application');
    await fails(1, ['deploy', charmDir('cli-logging'), '--constraints', 'mem=1G'], 'cannot use --constraints with subordinate application');
    await ok('deploy', charmDir('cli-logging'));
    expect(await getApplication(ctl.store, 'logging')).toMatchObject({ subordinate: true, unitCount: 0 });
  });

  it('a name in use, even by a Dying application, is refused', async () => {
    await ok('deploy', charmDir('cli-mysql'));
    await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'idle' } });
    await ok('remove-application', 'mysql');
    expect((await getApplication(ctl.store, 'mysql'))?.life).toBe('dying');
    await fails(1, ['deploy', charmDir('cli-mysql')], 'cannot add application "mysql": application already exists');
  });

  it('an unsupported series is refused', async () => {
    await fails(
      1,
      ['deploy', charmDir('cli-blog'), '--series', 'focal'],
      'base "ubuntu@20.04" not supported by charm, the charm supported bases are: ubuntu@22.04',
    );
  });
});

describe('units and machines', () => {
  beforeEach(async () => {
    await ok('deploy', charmDir('cli-mysql'));
  });

  it('add-unit -n adds units', async () => {
    await ok('add-unit', 'mysql', '-n', '2');
    expect((await getApplication(ctl.store, 'mysql'))?.unitCount).toBe(3);
  });

  it('add-unit -n beyond what one call adds says the rest come in the background, and they come', async () => {
    const res = await ok('add-unit', 'mysql', '-n', String(IN_CALL_UNITS + 6));
    expect(res.stderr).toBe('adding 6 more units of mysql in the background; status shows them as they are added\n');
    expect(await getApplication(ctl.store, 'mysql')).toMatchObject({ unitCount: 1 + IN_CALL_UNITS, pendingUnits: 6 });
    await runAllCleanups(ctl.store);
    expect(await getApplication(ctl.store, 'mysql')).toMatchObject({ unitCount: 1 + IN_CALL_UNITS + 6, pendingUnits: 0 });
  }, 120_000);

  it('add-unit --to places the unit', async () => {
    const machine = await ok('add-machine');
    expect(machine.stderr).toBe('created machine 1\n');
    await ok('add-unit', 'mysql', '--to', '1');
    expect((await getUnit(ctl.store, 'mysql/1'))?.machine).toBe('1');
  });

  it('an unknown application is an error', async () => {
    await fails(1, ['add-unit', 'nope'], 'cannot add unit to application "nope": application "nope" not found');
  });

  it('add-machine takes -n, --series and --constraints', async () => {
    const res = await ok('add-machine', '-n', '2', '--series', 'focal', '--constraints', 'cores=4');
    expect(res.stderr).toBe('created machine 1\ncreated machine 2\n');
    expect(await getMachine(ctl.store, '2')).toMatchObject({ series: 'focal', constraints: { cores: 4 } });
  });

  it('remove-unit prints a line per unit and fails if any failed (unknown unit)', async () => {
    const res = await ctl.run(['remove-unit', 'mysql/0', 'mysql/9']);
    expect(res.stderr).toBe('removing unit mysql/0\nremoving unit mysql/9 failed: unit "mysql/9" does not exist\n');
    expect(res.code).toBe(1);
  });

  it("destroy-unit is remove-unit, and Juju 3.6's --no-prompt and --destroy-storage are accepted", async () => {
    const res = await ok('destroy-unit', 'mysql/0', '--no-prompt', '--destroy-storage');
    expect(res.stderr).toBe('removing unit mysql/0\n');
  });

  it('remove-unit --force', async () => {
    await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'idle' } });
    const res = await ok('remove-unit', '--force', 'mysql/0');
    expect(res.stderr).toBe('removing unit mysql/0\n');
  });

  it('remove-machine refuses a machine with units assigned', async () => {
    const res = await ctl.run(['remove-machine', '0']);
    expect(res.stderr).toBe('removing machine 0 failed: machine 0 has unit "mysql/0" assigned\n');
    expect(res.code).toBe(1);
  });

  it('remove-machine of an empty machine, and destroy-machine --force of one with units', async () => {
    await ok('add-machine');
    expect((await ok('remove-machine', '1', '--no-prompt')).stderr).toBe('removing machine 1\n');
    await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'idle' } });
    expect((await ok('destroy-machine', '--force', '0')).stderr).toBe('removing machine 0\n');
    await runAllCleanups(ctl.store); // --force falls back on the controller's cleanup
    expect((await getUnit(ctl.store, 'mysql/0'))?.life ?? 'removed').not.toBe('alive');
  });

  it('remove-application and its seed aliases', async () => {
    await ok('deploy', charmDir('cli-wordpress'), '-n', '0');
    await ok('deploy', charmDir('cli-logging'));
    expect((await ok('destroy-service', 'wordpress')).stderr).toBe('removing application wordpress\n');
    expect((await ok('remove-service', 'logging')).stderr).toBe('removing application logging\n');
    await fails(2, ['remove-application', '--no-prompt', '--no-wait', 'mysql'], '--no-wait without --force not valid');
    expect((await ok('remove-application', '--no-prompt', '--destroy-storage', '--force', '--no-wait', 'mysql')).stderr).toBe(
      'removing application mysql\n',
    );
    const res = await ctl.run(['remove-application', 'nope']);
    expect(res.stderr).toMatch(/^removing application nope failed: .*"nope".*\n$/);
    expect(res.code).toBe(1);
  });

  it('bad names are usage errors (exit 2), as Juju checks them before calling the API', async () => {
    await fails(2, ['remove-unit', 'mysql'], 'invalid unit name "mysql"');
    // Kubernetes models' --num-units, in Juju's words for a machine model.
    await fails(2, ['remove-unit', 'mysql', '--num-units', '1'], '--num-units for non k8s models not valid');
    await fails(2, ['remove-machine', 'x'], 'invalid machine id "x"');
    await fails(2, ['remove-application', 'My_App'], 'invalid application name "My_App"');
    await fails(2, ['remove-unit'], "missing required argument 'units'");
    await fails(2, ['add-unit', 'mysql', '-n', 'two'], /--num-units must be a positive integer/);
    await fails(2, ['add-unit', 'mysql', '--bogus'], "unknown option '--bogus'");
  });
});

describe('relations', () => {
  beforeEach(async () => {
    await ok('deploy', charmDir('cli-mysql'));
    await ok('deploy', charmDir('cli-wordpress'));
  });

  it('relate, add-relation and integrate relate two applications', async () => {
    await ok('relate', 'wordpress', 'mysql');
    expect((await getApplication(ctl.store, 'mysql'))?.relations).toEqual(['wordpress:db mysql:server']);
    await ok('remove-relation', 'wordpress', 'mysql', '--force', '--no-prompt');
    await ok('add-relation', 'wordpress:db', 'mysql:server');
    await ok('destroy-relation', 'wordpress:db', 'mysql:server');
    await ok('integrate', 'mysql', 'wordpress');
    expect((await getApplication(ctl.store, 'wordpress'))?.relations).toHaveLength(1);
  });

  it('a duplicate relation is refused the way Juju re-prints it', async () => {
    await ok('relate', 'wordpress', 'mysql');
    const res = await ctl.run(['relate', 'wordpress', 'mysql']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'ERROR \ncannot add relation "wordpress:db mysql:server"\nrelation wordpress:db mysql:server\n\n' +
        "Use 'drover status --relations' to view the current relations.\n",
    );
  });

  it('remove-relation by id', async () => {
    await ok('relate', 'wordpress', 'mysql');
    const id = (await ctl.run(['status', '--format', 'json'])).stdout;
    const relation = (JSON.parse(id) as { relations: { id: number; key: string }[] }).relations.find((r) => r.key.includes('mysql'));
    await ok('remove-relation', String(relation!.id));
    expect((await getApplication(ctl.store, 'mysql'))?.relations).toEqual([]);
  });

  it('relating an unknown application, or the wrong number of them, fails', async () => {
    await fails(1, ['relate', 'wordpress', 'nope'], 'application "nope" not found');
    await fails(2, ['relate', 'wordpress'], 'a relation must involve two applications');
    await fails(2, ['remove-relation', 'a', 'b', 'c'], 'a relation must involve two applications');
    await fails(2, ['remove-relation', 'x'], /invalid relation id "x"/);
  });
});

describe('constraints', () => {
  beforeEach(async () => {
    await ok('deploy', charmDir('cli-mysql'));
  });

  it('set-constraints <app> and get-constraints <app>', async () => {
    await ok('set-constraints', 'mysql', 'mem=8G', 'cores=4');
    expect((await ok('get-constraints', 'mysql')).stdout).toBe('arch=amd64 cores=4 mem=8192M\n');
  });

  it("Juju 1's form: set-constraints --service <app>, and the model's with no application", async () => {
    await ok('set-constraints', '--service', 'mysql', 'mem=2G');
    expect((await ok('get-constraints', '--service', 'mysql')).stdout).toBe('arch=amd64 mem=2048M\n');
    await ok('set-constraints', 'cores=2');
    expect((await ok('get-constraints')).stdout).toBe('cores=2\n');
    expect((await ok('get-model-constraints')).stdout).toBe('cores=2\n');
  });

  it('set-model-constraints, model-constraints (get-model-constraints) and their JSON, as jubilant reads it', async () => {
    expect((await ok('model-constraints', '--format', 'json')).stdout).toBe('{}\n');
    await ok('set-model-constraints', 'mem=4G', 'cores=2');
    expect((await ok('get-model-constraints')).stdout).toBe('cores=2 mem=4096M\n');
    expect(JSON.parse((await ok('model-constraints', '--format', 'json')).stdout)).toEqual({ cores: 2, mem: 4096 });
    expect(JSON.parse((await ok('constraints', 'mysql', '--format', 'json')).stdout)).toEqual({ arch: 'amd64' });
    await ok('set-model-constraints', 'mem=4G');
    expect((await ok('model-constraints')).stdout).toBe('mem=4096M\n');
    await ok('set-model-constraints');
    expect((await ok('get-model-constraints')).stdout).toBe('');
  });

  it('bad constraints are refused before anything is sent', async () => {
    await fails(
      1,
      ['set-constraints', 'mysql', 'mem=lots'],
      'bad "mem" constraint: must be a non-negative float with optional M/G/T/P suffix',
    );
    await fails(1, ['set-model-constraints', 'cheese'], 'malformed constraint "cheese"');
    await fails(1, ['add-machine', '--constraints', 'colour=red'], 'unknown constraint "colour"');
    await fails(1, ['get-constraints', 'nope'], /application "nope" not found/);
  });
});

describe('config and expose', () => {
  beforeEach(async () => {
    await ok('deploy', charmDir('cli-wordpress'), '-n', '0');
  });

  it('shows every setting as YAML, one value plainly, and sets values', async () => {
    const all = await ok('config', 'wordpress');
    expect(all.stdout).toContain('application: wordpress\napplication-config:\n  trust:\n');
    expect(all.stdout).toContain('charm: wordpress\nsettings:\n');
    expect(all.stdout).toContain('  blog-title:\n    default: My Title\n');
    expect((await ok('config', 'wordpress', 'blog-title')).stdout).toBe('My Title\n');
    await ok('config', 'wordpress', 'blog-title=Hello world', 'debug=true');
    expect((await ok('config', 'wordpress', 'blog-title')).stdout).toBe('Hello world\n');
    expect((await ok('config', 'wordpress', 'debug')).stdout).toBe('true\n');
    await ok('config', 'wordpress', '--reset', 'blog-title,debug');
    expect((await ok('config', 'wordpress', 'blog-title')).stdout).toBe('My Title\n');
    // Juju 3.6's JSON, as jubilant reads it: application-config (trust) and settings with their metadata.
    const trust = { default: false, description: 'Does this application have access to trusted credentials', type: 'bool' };
    expect(JSON.parse((await ok('config', 'wordpress', '--format', 'json')).stdout)).toEqual({
      application: 'wordpress',
      'application-config': { trust: { ...trust, source: 'default', value: false } },
      charm: 'wordpress',
      settings: {
        'blog-title': { default: 'My Title', description: 'the title of the blog', source: 'default', type: 'string', value: 'My Title' },
        debug: { default: false, description: 'log every request', source: 'default', type: 'boolean', value: false },
      },
    });
    // trust, trust --remove and deploy --trust: the application-config's trust.
    await ok('trust', 'wordpress');
    const trusted = JSON.parse((await ok('config', 'wordpress', '--format', 'json')).stdout);
    expect(trusted['application-config'].trust).toEqual({ ...trust, source: 'user', value: true });
    expect((await ok('config', 'wordpress', 'trust')).stdout).toBe('true\n');
    await ok('trust', 'wordpress', '--remove');
    expect((await getApplication(ctl.store, 'wordpress'))?.trust).toBe(false);
    await ok('deploy', charmDir('cli-mysql'), '--trust');
    expect((await getApplication(ctl.store, 'mysql'))?.trust).toBe(true);
    await fails(1, ['trust', 'nope'], /application "nope" not found/);
    // --scope is for Kubernetes models; on a machine model Juju ignores it, as jubilant's test_trust relies on.
    await ok('trust', 'wordpress', '--scope', 'cluster');
    expect((await getApplication(ctl.store, 'wordpress'))?.trust).toBe(true);
    await ok('trust', 'wordpress', '--remove', '--scope', 'cluster');
    expect((await getApplication(ctl.store, 'wordpress'))?.trust).toBe(false);
  });

  it('refuses bad values, unknown keys and mixed get/set', async () => {
    await fails(1, ['config', 'wordpress', 'debug=maybe'], /ERROR .*debug.*true or false/);
    await fails(1, ['config', 'wordpress', 'nope'], 'key "nope" not found in "wordpress" application config or charm settings');
    await fails(2, ['config', 'wordpress', 'debug', 'blog-title=x'], 'cannot set and retrieve values simultaneously');
    await fails(1, ['config', 'nope'], /application "nope" not found/);
  });

  it('expose and unexpose', async () => {
    await ok('expose', 'wordpress');
    expect((await getApplication(ctl.store, 'wordpress'))?.exposed).toBe(true);
    await ok('unexpose', 'wordpress');
    expect((await getApplication(ctl.store, 'wordpress'))?.exposed).toBe(false);
    await fails(1, ['expose', 'nope'], 'application "nope" not found');
  });
});

describe('resolved and retry-provisioning', () => {
  beforeEach(async () => {
    await ok('deploy', charmDir('cli-mysql'), '-n', '2');
  });

  it('resolved marks a unit in error to retry its hook; --no-retry to skip it', async () => {
    await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'error', message: 'hook failed: "install"' } });
    await setUnitStatus(ctl.store, 'mysql/1', { agent: { current: 'error', message: 'hook failed: "install"' } });
    await ok('resolved', 'mysql/0');
    expect((await getUnit(ctl.store, 'mysql/0'))?.resolved).toBe('retry-hooks');
    await ok('resolve', '--no-retry', 'mysql/1');
    expect((await getUnit(ctl.store, 'mysql/1'))?.resolved).toBe('no-hooks');
    await fails(1, ['resolved', 'mysql/0'], 'cannot set resolved mode for unit "mysql/0": already resolved');
  });

  it('resolved --all finds the units in error', async () => {
    await setUnitStatus(ctl.store, 'mysql/1', { agent: { current: 'error', message: 'hook failed: "start"' } });
    await ok('resolved', '--all');
    expect((await getUnit(ctl.store, 'mysql/1'))?.resolved).toBe('retry-hooks');
    expect((await getUnit(ctl.store, 'mysql/0'))?.resolved).toBeUndefined();
  });

  it('resolved refuses a unit not in error, and bad arguments', async () => {
    await fails(1, ['resolved', 'mysql/0'], 'unit "mysql/0" is not in an error state');
    await fails(2, ['resolved'], 'no unit specified');
    await fails(2, ['resolved', 'mysql/0', '--constraints', 'mem=1G'], '--constraints applies to machines only');
  });

  it('retry-provisioning and resolved <machine> --constraints retry a machine in provisioning error', async () => {
    await recordProvisioningError(ctl.store, '0', {
      message: 'no instance types in local matching constraints',
      transient: false,
      attempt: 0,
    });
    await recordProvisioningError(ctl.store, '1', {
      message: 'no instance types in local matching constraints',
      transient: false,
      attempt: 0,
    });
    await ok('retry-provisioning', '0');
    expect(await getMachine(ctl.store, '0')).toMatchObject({ provisioningAttempt: 1, instanceStatus: { current: 'pending' } });
    await ok('resolved', '1', '--constraints', 'mem=2G');
    expect(await getMachine(ctl.store, '1')).toMatchObject({ provisioningAttempt: 1, constraints: { mem: 2048 } });
    await fails(1, ['retry-provisioning', '0'], 'machine 0 is not in an error state (pending)');
    await fails(2, ['retry-provisioning'], 'no machine specified');
  });

  it('retry-provisioning --all retries every machine in provisioning error', async () => {
    await recordProvisioningError(ctl.store, '1', { message: 'capacity', transient: true, attempt: 0 });
    await ok('retry-provisioning', '--all');
    expect((await getMachine(ctl.store, '1'))?.provisioningAttempt).toBe(1);
    expect((await getMachine(ctl.store, '0'))?.provisioningAttempt).toBe(0);
  });
});

describe('show-* and stuck', () => {
  beforeEach(async () => {
    await ok('deploy', charmDir('cli-mysql'));
  });

  it("show-machine comes from status; show-unit and show-application are Juju 3.6's, with the unit's relation data", async () => {
    expect((await ok('show-machine', '0')).stdout).toMatch(/^model: default\nmachines:\n {2}"0":\n {4}juju-status:\n/);
    await ok('deploy', charmDir('cli-wordpress'), '-n', '2');
    await ok('relate', 'wordpress', 'mysql');
    const key = (await getApplication(ctl.store, 'mysql'))!.relations[0]!;
    const id = (await getRelation(ctl.store, key))!.id;
    await enterScope(ctl.store, 'mysql/0', key, { 'private-address': '10.0.0.1' });
    await enterScope(ctl.store, 'wordpress/1', key, { 'private-address': '10.0.0.3' });
    await enterScope(ctl.store, 'wordpress/0', key, { 'private-address': '10.0.0.2' });
    await claimLeadership(ctl.store, 'wordpress/0', 60_000);
    await commitHookChanges(ctl.store, 'wordpress/0', {
      settings: [],
      ports: [],
      workloadVersion: '6.4',
      appSettings: { application: 'wordpress', relations: [{ relationId: id, changes: { database: 'blog' } }] },
    });
    await commitHookChanges(ctl.store, 'mysql/0', { settings: [], ports: [{ action: 'open', range: '3306/tcp' }] });
    const shown = JSON.parse((await ok('show-unit', 'mysql/0', '--format', 'json')).stdout);
    // Every key jubilant's UnitInfo reads: related units in number order, the related application's bag.
    expect(shown).toEqual({
      'mysql/0': {
        machine: '0',
        'opened-ports': ['3306/tcp'],
        charm: 'local:mysql-0',
        leader: false,
        life: 'alive',
        'relation-info': [
          {
            'relation-id': id,
            endpoint: 'server',
            'related-endpoint': 'db',
            'application-data': { database: 'blog' },
            'local-unit': { 'in-scope': true, data: { 'private-address': '10.0.0.1' } },
            'related-units': {
              'wordpress/0': { 'in-scope': true, data: { 'private-address': '10.0.0.2' } },
              'wordpress/1': { 'in-scope': true, data: { 'private-address': '10.0.0.3' } },
            },
          },
        ],
      },
    });
    const wordpress = JSON.parse((await ok('show-unit', 'wordpress/0', '--format', 'json', '--related-unit', 'mysql/0')).stdout)[
      'wordpress/0'
    ];
    expect(wordpress).toMatchObject({ 'workload-version': '6.4', leader: true, 'opened-ports': [] });
    expect(wordpress['relation-info'][0]['related-units']).toEqual({
      'mysql/0': { 'in-scope': true, data: { 'private-address': '10.0.0.1' } },
    });
    const appOnly = JSON.parse((await ok('show-unit', 'mysql/0', '--format', 'json', '--app')).stdout)['mysql/0']['relation-info'][0];
    expect(Object.keys(appOnly)).toEqual(['relation-id', 'endpoint', 'related-endpoint', 'application-data']);
    const app = JSON.parse((await ok('show-application', 'mysql', '--format', 'json')).stdout);
    expect(app).toEqual({
      mysql: {
        charm: 'mysql',
        base: 'ubuntu@22.04',
        constraints: 'arch=amd64',
        principal: true,
        exposed: false,
        remote: false,
        life: 'alive',
      },
    });
    await fails(1, ['show-machine', '7'], 'machine 7 not found');
    await fails(1, ['show-unit', 'mysql/7'], 'unit "mysql/7" not found');
    await fails(2, ['show-unit', 'mysql'], 'invalid unit name "mysql"');
    await fails(1, ['show-application', 'nope'], 'application "nope" not found');
  });

  it('stuck lists what the watchdog sees, and why', async () => {
    expect((await ok('stuck')).stderr).toBe('Nothing is stuck.\n');
    await recordProvisioningError(ctl.store, '0', { message: 'no capacity', transient: false, attempt: 0 });
    const res = await ok('stuck');
    expect(res.stdout).toMatch(
      /^Entity +Life +For +Blocked by\nmachine 0 +alive +\d+s +provisioning error: no capacity \(run "drover retry-provisioning 0"\)\n$/,
    );
    expect(JSON.parse((await ok('stuck', '--format', 'json')).stdout)).toMatchObject([{ entity: 'machine 0' }]);
  });
});

describe('debug-log and show-status-log', () => {
  const record = (entity: string, second: number, level: 'INFO' | 'ERROR', message: string) => ({
    entity,
    time: `2024-01-02T10:07:${String(second).padStart(2, '0')}Z`,
    level,
    module: 'juju.worker.uniter',
    message,
  });

  it('debug-log shows the last lines, filtered, as Juju prints them', async () => {
    await ctl.logs.append([
      record('unit-mysql-0', 1, 'INFO', 'running install hook'),
      record('unit-mysql-0', 2, 'ERROR', 'hook "install" failed: exit status 1'),
      record('machine-0', 3, 'INFO', 'machine agent started'),
    ]);
    expect((await ok('debug-log', '--no-tail')).stdout).toBe(
      'unit-mysql-0: 10:07:01 INFO juju.worker.uniter running install hook\n' +
        'unit-mysql-0: 10:07:02 ERROR juju.worker.uniter hook "install" failed: exit status 1\n' +
        'machine-0: 10:07:03 INFO juju.worker.uniter machine agent started\n',
    );
    expect((await ok('debug-log', '--no-tail', '-n', '1')).stdout).toBe(
      'machine-0: 10:07:03 INFO juju.worker.uniter machine agent started\n',
    );
    expect((await ok('debug-log', '--no-tail', '--include', 'mysql/0', '--level', 'ERROR')).stdout).toBe(
      'unit-mysql-0: 10:07:02 ERROR juju.worker.uniter hook "install" failed: exit status 1\n',
    );
    expect((await ok('debug-log', '--no-tail', '--replay', '--exclude', 'mysql/0')).stdout).toBe(
      'machine-0: 10:07:03 INFO juju.worker.uniter machine agent started\n',
    );
    // Juju 3.6: --limit shows the most recent lines and exits; levels in any case; stdout not a
    // terminal, so no --no-tail is needed to end.
    expect((await ok('debug-log', '--limit', '2', '--level', 'info', '-x', 'machine-0')).stdout).toBe(
      'unit-mysql-0: 10:07:01 INFO juju.worker.uniter running install hook\n' +
        'unit-mysql-0: 10:07:02 ERROR juju.worker.uniter hook "install" failed: exit status 1\n',
    );
    expect((await ok('debug-log', '--limit', '0')).stdout.split('\n')).toHaveLength(4);
    await fails(
      2,
      ['debug-log', '--level', 'CRITICAL'],
      /level value "CRITICAL" is not one of "TRACE", "DEBUG", "INFO", "WARNING", "ERROR"/,
    );
  });

  it('debug-log prints control characters escaped, so a message cannot forge a line or drive the terminal (docs/reliability.md, "Defects found by a hostile probe, and their regression tests")', async () => {
    await ctl.logs.append([
      record('unit-mysql-0', 1, 'INFO', 'done\nunit-mysql-1: 10:07:01 ERROR juju.worker.uniter forged\x1b[2J'),
      record('machine-0', 2, 'INFO', 'tab\there'),
    ]);
    expect((await ok('debug-log', '--no-tail')).stdout).toBe(
      'unit-mysql-0: 10:07:01 INFO juju.worker.uniter done\\nunit-mysql-1: 10:07:01 ERROR juju.worker.uniter forged\\x1b[2J\n' +
        'machine-0: 10:07:02 INFO juju.worker.uniter tab\\there\n',
    );
  });

  it("show-task prints a charm's action-log and failure messages with control characters escaped (docs/reliability.md, 'Defects found by a hostile probe, and their regression tests')", async () => {
    await ok('deploy', charmDir('cli-mysql'), 'db-log');
    const queued = await enqueueOperation(ctl.store, {
      action: EXEC_ACTION,
      units: ['db-log/0'],
      parameters: { command: 'true', timeout: 300 },
    });
    const id = queued.tasks[0]!.id;
    await startTask(ctl.store, id);
    await logTask(ctl.store, id, 'step 1\n2024-01-01 00:00:00 +0000 UTC forged\x1b[2J');
    await finishTask(ctl.store, id, { status: 'failed', results: {}, message: 'no\rway' });
    const res = await ctl.run(['show-task', id]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/ \+0000 UTC step 1\\n2024-01-01 00:00:00 \+0000 UTC forged\\x1b\[2J\n/);
    expect(res.stderr).toContain(`Action id ${id} failed: no\\rway\n`);
  });

  it('debug-log --tail follows the log until interrupted (the default only when stdout is a terminal)', async () => {
    await ctl.logs.append([record('unit-mysql-0', 1, 'INFO', 'first')]);
    const stop = new AbortController();
    const seen: string[] = [];
    let printedFirst!: () => void;
    const firstPrinted = new Promise<void>((r) => (printedFirst = r));
    const following = ctl.run(['debug-log', '--tail'], {
      signal: stop.signal,
      onStdout: (text) => {
        seen.push(text);
        if (text.includes('first')) printedFirst();
        if (text.includes('second')) stop.abort();
      },
    });
    // Once the past lines are printed it follows from there: append only then, no sleep.
    await firstPrinted;
    await ctl.logs.append([record('unit-mysql-0', 2, 'INFO', 'second')]);
    const res = await following;
    expect(res.code).toBe(0);
    expect(seen.join('')).toBe(
      'unit-mysql-0: 10:07:01 INFO juju.worker.uniter first\nunit-mysql-0: 10:07:02 INFO juju.worker.uniter second\n',
    );
  });

  it("show-status-log shows the history of a unit's statuses, oldest first", async () => {
    await ok('deploy', charmDir('cli-mysql'), 'db-history');
    await setUnitStatus(ctl.store, 'db-history/0', { agent: { current: 'executing', message: 'running install hook' } });
    await setUnitStatus(ctl.store, 'db-history/0', { workload: { current: 'active', message: 'ready' } });
    const entries = JSON.parse((await ok('show-status-log', 'db-history/0', '--format', 'json')).stdout) as {
      type: string;
      status: string;
    }[];
    expect(entries.map((e) => `${e.type} ${e.status}`)).toEqual(['juju-unit executing', 'workload active']);
    const workload = JSON.parse(
      (await ok('show-status-log', 'db-history/0', '--type', 'workload', '--format', 'json')).stdout,
    ) as unknown[];
    expect(workload).toHaveLength(1);
    expect((await ok('show-status-log', 'db-history/0', '--utc')).stdout).toMatch(
      /Time +Type +Status +Message\n.*juju-unit +executing +running install hook/,
    );
  });
});
