// `drover model-defaults` end to end against a real API over DynamoDB Local: Juju 3.6's output (a
// table of Attribute/Default/Controller, YAML and JSON of {default, controller}), one key, changes
// and resets kept in the controller's one item, the defaults new models take, and refusals in
// Juju's words that change nothing.
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getModel } from '#shared/state/engine/reads.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { getModelDefaults } from '#shared/state/operations/model-defaults.js';
import { expectOk, startCliController, type CliHarness } from '../support/cli.js';
import { expectGoldenFile } from '../support/golden.js';

const GOLDEN = fileURLToPath(new URL('../golden', import.meta.url));
const MIRROR = 'http://10.0.0.5:8080';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);

describe('model-defaults', () => {
  it('shows every key as Juju 3.6 does, before and after the controller sets one', async () => {
    expect((await ok('model-defaults')).stdout).toBe(
      'Attribute                    Default                  Controller\nauthorized-keys              ""                       -\ncharmhub-url                 https://api.charmhub.io  -\nlogging-config               <root>=INFO              -\nupdate-status-hook-interval  5m                       -\n',
    );
    expect((await ok('model-defaults', `charmhub-url=${MIRROR}`, 'update-status-hook-interval=10m')).stdout).toBe('');
    await expectGoldenFile(GOLDEN, 'model-defaults.tabular.golden', (await ok('model-defaults')).stdout);
    await expectGoldenFile(GOLDEN, 'model-defaults.yaml.golden', (await ok('model-defaults', '--format', 'yaml')).stdout);
    await expectGoldenFile(GOLDEN, 'model-defaults.json.golden', (await ok('model-defaults', '--format=json')).stdout);
    expect(JSON.parse((await ok('model-defaults', '--format=json')).stdout)['charmhub-url']).toEqual({
      default: 'https://api.charmhub.io',
      controller: MIRROR,
    });
    // One key, in the same shapes (Juju writes ModelDefaultAttributes{key: value}).
    expect((await ok('model-defaults', 'charmhub-url')).stdout).toBe(
      `Attribute     Default                  Controller\ncharmhub-url  https://api.charmhub.io  ${MIRROR}\n`,
    );
    expect((await ok('model-default', 'logging-config', '--format', 'yaml')).stdout).toBe('logging-config:\n  default: <root>=INFO\n');
    expect(await getModelDefaults(ctl.store)).toEqual({
      config: { 'charmhub-url': MIRROR, 'update-status-hook-interval': '10m' },
      version: 1,
    });
    await ok('model-defaults', '--reset', 'update-status-hook-interval');
    expect(await getModelDefaults(ctl.store)).toEqual({ config: { 'charmhub-url': MIRROR }, version: 2 });
    // The same value again changes nothing, not even the version.
    await ok('model-defaults', `charmhub-url=${MIRROR}`);
    expect((await getModelDefaults(ctl.store))?.version).toBe(2);
  });

  it('gives new models the controller defaults under their own --config; models that exist keep theirs', async () => {
    await ok('model-defaults', `charmhub-url=${MIRROR}`, 'update-status-hook-interval=10m');
    await ok('add-model', 'mirrored', '--config', 'update-status-hook-interval=1m');
    const mirrored = await getModel(await storeOfModel(ctl.store, 'mirrored'));
    expect(mirrored?.config).toEqual({ 'charmhub-url': MIRROR, 'update-status-hook-interval': '1m' });
    // Juju names a value's source by the level it matches: the controller's default here.
    expect(JSON.parse((await ok('model-config', '--format', 'json')).stdout)).toMatchObject({
      'charmhub-url': { Value: MIRROR, Source: 'controller' },
      'update-status-hook-interval': { Value: '1m', Source: 'model' },
    });
    // Created before the default, `default` still asks Charmhub itself.
    expect((await getModel(await storeOfModel(ctl.store, 'default')))?.config).toBeUndefined();
    expect((await ok('model-config', '-m', 'default', 'charmhub-url')).stdout).toBe('https://api.charmhub.io\n');
    // A default changed later changes no model: charmhub-url stays as the model was made.
    await ok('model-defaults', '--reset', 'charmhub-url');
    expect((await ok('model-config', 'charmhub-url')).stdout).toBe(`${MIRROR}\n`);
  });

  it("refuses bad values and arguments in Juju's words, and changes nothing", async () => {
    const cases: [string[], number, string][] = [
      [['charmhub-url=not a url'], 1, 'charmhub-url: invalid URL "not a url"'],
      [['colour=red'], 1, 'unknown model config key "colour"'],
      [['--reset', 'colour'], 1, 'unknown model config key "colour"'],
      [['nope'], 1, 'there are no default model values for "nope"'],
      [['logging-config', 'charmhub-url'], 2, 'cannot specify multiple keys to get'],
      [['logging-config', 'update-status-hook-interval=1m'], 2, 'cannot get value and set key=value pairs simultaneously'],
      [['--reset', 'logging-config', 'logging-config=<root>=DEBUG'], 2, 'cannot set and reset key "logging-config" simultaneously'],
      [['--reset', 'logging-config=x'], 2, '--reset accepts a comma delimited set of keys "a,b,c", received: "logging-config=x"'],
      [['=x'], 2, 'expected "key=value", got "=x"'],
    ];
    for (const [args, code, message] of cases) {
      const res = await ctl.run(['model-defaults', ...args]);
      expect(res.code, args.join(' ')).toBe(code);
      expect(res.stderr).toBe(`ERROR ${message}\n`);
    }
    expect(await getModelDefaults(ctl.store)).toBeUndefined();
  });
});
