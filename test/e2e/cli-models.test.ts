// Models end to end against a real API over DynamoDB Local: add-model, models, show-model, switch
// and -m; two models side by side with the same application names, each seeing only its own; and
// the refusals (a bad name, a name taken, a model that does not exist), which change nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getApplication } from '#shared/state/engine/reads.js';
import { listModelNames, storeOfModel } from '#shared/state/queries/models.js';
import { charmDir, expectError, expectOk, startCliController, type CliHarness } from '../support/cli.js';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);
const statusOf = async (...args: string[]) => JSON.parse((await ok('status', '--format', 'json', ...args)).stdout);

describe('models', () => {
  it('adds a model and switches to it; models, show-model and switch show and change the current one', async () => {
    const added = await ok('add-model', 'staging', '--config', 'update-status-hook-interval=10m');
    expect(added.stderr).toBe('Added \'staging\' model on controller "test"\n');
    expect((await ok('switch')).stdout).toBe('test:staging\n');
    expect((await ok('models')).stdout).toBe(
      'Controller: test\n\nModel     Type  Status\ndefault   iaas  available\nstaging*  iaas  available\n',
    );
    const listed = JSON.parse((await ok('models', '--format', 'json')).stdout);
    expect(listed['current-model']).toBe('staging');
    expect(listed.models.map((m: { 'short-name': string }) => m['short-name'])).toEqual(['default', 'staging']);
    const shown = JSON.parse((await ok('show-model', '--format', 'json')).stdout);
    // Juju 3.6's ModelInfo, every key jubilant's ModelInfo requires.
    expect(shown.staging).toEqual({
      name: 'admin/staging',
      'short-name': 'staging',
      'model-uuid': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'model-type': 'iaas',
      'controller-uuid': expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      'controller-name': 'test',
      'is-controller': false,
      owner: 'admin',
      cloud: 'local',
      region: 'local',
      type: 'local',
      life: 'alive',
      status: { current: 'available' },
      users: { admin: { 'display-name': 'admin', access: 'admin', 'last-connection': 'just now' } },
      'agent-version': '3.6.12',
      'supported-features': [{ name: 'juju', description: 'the version of Juju used by the model', version: '3.6.12' }],
    });
    expect(listed.models[1]).toMatchObject({
      name: 'admin/staging',
      'controller-uuid': shown.staging['controller-uuid'],
      'is-controller': false,
      cloud: 'local',
      access: 'admin',
      'agent-version': '3.6.12',
    });
    // Juju's qualified names, [controller:][owner/]model, wherever a model is named.
    for (const name of ['admin/staging', 'test:admin/staging', 'test:staging']) {
      expect(JSON.parse((await ok('show-model', name, '--format', 'json')).stdout).staging['model-uuid']).toBe(shown.staging['model-uuid']);
    }
    expect((await ok('-m', 'test:admin/default', 'model-config', 'update-status-hook-interval')).stdout).toBe('5m\n');
    await expectError(ctl, 1, ['show-model', 'bob/staging'], 'model test:bob/staging not found');
    await expectError(ctl, 1, ['-m', 'nope:admin/staging', 'status'], 'controller nope not found');
    expect(shown.staging['model-uuid']).not.toBe(
      JSON.parse((await ok('show-model', 'default', '--format', 'json')).stdout).default['model-uuid'],
    );
    // model-config acts on the selected model only.
    expect((await ok('model-config', 'update-status-hook-interval')).stdout).toBe('10m\n');
    expect((await ok('-m', 'default', 'model-config', 'update-status-hook-interval')).stdout).toBe('5m\n');
    expect((await ok('switch', 'default')).stderr).toBe('test:staging -> test:default\n');
    expect((await ok('switch', 'test:admin/staging')).stderr).toBe('test:default -> test:staging\n');
    expect((await ok('add-model', 'prod', '--no-switch')).stderr).toContain("Added 'prod' model");
    expect((await ok('switch')).stdout).toBe('test:staging\n');
  });

  it('keeps two models with the same application names apart', async () => {
    await ok('add-model', 'staging', '--no-switch');
    await ok('deploy', charmDir('cli-mysql'), '-n', '2');
    await ok('-m', 'staging', 'deploy', charmDir('cli-mysql'));
    await ok('-m', 'test:staging', 'deploy', charmDir('cli-wordpress'));
    const main = await statusOf();
    const staging = await statusOf('-m', 'staging');
    expect(main.model.name).toBe('default');
    expect(staging.model.name).toBe('staging');
    expect(Object.keys(main.applications)).toEqual(['mysql']);
    expect(Object.keys(staging.applications).sort()).toEqual(['mysql', 'wordpress']);
    expect(Object.keys(main.applications.mysql.units)).toEqual(['mysql/0', 'mysql/1']);
    // Each model numbers its own units and machines from 0.
    expect(Object.keys(staging.applications.mysql.units)).toEqual(['mysql/0']);
    expect(Object.keys(staging.machines)).toEqual(['0', '1']);
    // Removing staging's mysql leaves default's alone.
    await ok('-m', 'staging', 'remove-application', 'mysql');
    expect((await getApplication(await storeOfModel(ctl.store, 'staging'), 'mysql'))?.life).toBe('dying');
    expect((await getApplication(ctl.store, 'mysql'))?.life).toBe('alive');
    // A relation cannot cross models: staging's wordpress does not see default's mysql.
    await expectError(ctl, 1, ['-m', 'staging', 'relate', 'wordpress', 'mysql'], /mysql/);
  });

  it('refuses a bad name, a taken name and a model that does not exist, and changes nothing', async () => {
    await ok('add-model', 'staging', '--no-switch');
    await expectError(
      ctl,
      1,
      ['add-model', 'Staging'],
      '"Staging" is not a valid name: model names may only contain lowercase letters, digits and hyphens',
    );
    await expectError(ctl, 1, ['add-model', 'staging'], 'model "staging" already exists');
    await expectError(ctl, 1, ['add-model', 'x', '--config', 'colour=red'], 'unknown model config key "colour"');
    await expectError(ctl, 1, ['-m', 'nope', 'status'], 'model "nope" not found; see "drover models"');
    await expectError(ctl, 1, ['show-model', 'nope'], 'model "nope" not found; see "drover models"');
    await expectError(ctl, 1, ['switch', 'nope'], '"nope" is not the name of a model or controller');
    expect((await ok('switch')).stdout).toBe('test:default\n');
    // Other clouds, Kubernetes and credentials are not drover's, in the shape of Juju's NotSupported.
    await expectError(
      ctl,
      1,
      ['add-model', 'k8s', 'microk8s'],
      `cloud "microk8s" not supported: drover adds models on its controller's cloud, "local/local"`,
    );
    await expectError(
      ctl,
      1,
      ['add-cloud', 'mycloud', '--file', 'clouds.yaml'],
      "adding clouds not supported: drover deploys to its controller's own cloud (local or AWS), with the controller's own credentials",
    );
    await expectError(ctl, 1, ['add-credential', 'aws', '--client'], /^ERROR adding credentials not supported: /);
    await expectError(ctl, 1, ['add-k8s', 'microk8s'], 'Kubernetes clouds not supported: drover runs machine models only');
    expect((await listModelNames(ctl.store)).map((m) => m.name)).toEqual(['default', 'staging']);
    // jubilant's add_model: `add-model --no-switch <name> [<cloud>] [--controller <c>]`.
    await ok('add-model', '--no-switch', 'prod', 'local', '--controller', 'test');
    expect((await listModelNames(ctl.store)).map((m) => m.name)).toEqual(['default', 'prod', 'staging']);
  });

  it('destroy-model asks first, showing what goes with the model; no answer, a bad flag or a missing model changes nothing', async () => {
    await ok('add-model', 'staging', '--no-switch');
    await ok('-m', 'staging', 'deploy', charmDir('cli-mysql'));
    const asked = await ctl.run(['destroy-model', 'staging'], { stdin: ['n'] });
    expect(asked.code).toBe(1);
    expect(asked.stderr).toBe(
      'WARNING This command will destroy the "staging" model and affect the following resources. It cannot be stopped.\n\n' +
        ' - 1 machine will be destroyed\n  - machine list: "0"\n - 1 application will be removed\n  - application list: "mysql"\n\n' +
        'Continue? (y/N): ERROR model destruction aborted\n',
    );
    await expectError(ctl, 2, ['destroy-model', 'staging', '-y', '--no-wait'], '--no-wait without --force not valid');
    await expectError(
      ctl,
      2,
      ['destroy-model', 'staging', '--no-prompt', '--destroy-storage', '--release-storage'],
      '--destroy-storage and --release-storage cannot both be specified',
    );
    await expectError(ctl, 1, ['destroy-model', 'nope', '-y'], 'model "nope" not found; see "drover models"');
    expect((await statusOf('-m', 'staging')).model['model-status']).toMatchObject({ current: 'available' });
    // --force --no-wait returns once destruction is under way (this harness runs no cleanups).
    const rushed = await ok('destroy-model', 'test:admin/staging', '--no-prompt', '--destroy-storage', '--force', '--no-wait');
    expect(rushed.stderr).toBe('Destroying model\n');
    expect((await statusOf('-m', 'staging')).model['model-status']).toMatchObject({ current: 'destroying' });
  });
});
