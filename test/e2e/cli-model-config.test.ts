// `drover model-config` end to end against a real API over DynamoDB Local: Juju's output (a table
// of Attribute/From/Value, YAML of {value, source} and JSON of {Value, Source}, one value), its changes, and its refusals
// in Juju's words, which change nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getModel } from '#shared/state/engine/reads.js';
import { expectOk, startCliController, type CliHarness } from '../support/cli.js';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);

describe('model-config', () => {
  it('shows every key with its source, one value, and changes and resets a key', async () => {
    expect((await ok('model-config')).stdout).toBe(
      'Attribute                    From     Value\nauthorized-keys              default\ncharmhub-url                 default  https://api.charmhub.io\nlogging-config               default  <root>=INFO\nupdate-status-hook-interval  default  5m\n',
    );
    expect((await ok('model-config', 'update-status-hook-interval')).stdout).toBe('5m\n');
    // Juju 3.6 takes any duration (pytest-operator's fast_forward sets 10s), and logging-config.
    expect((await ok('model-config', 'update-status-hook-interval=10s', 'logging-config=<root>=INFO;unit=DEBUG')).stdout).toBe('');
    expect((await ok('model-config', 'update-status-hook-interval')).stdout).toBe('10s\n');
    // JSON as Juju 3.6 writes it (Go's field names: jubilant reads `Value`); YAML in lower case.
    expect(JSON.parse((await ok('model-config', '--format', 'json')).stdout)).toEqual({
      'authorized-keys': { Value: '', Source: 'default' },
      'charmhub-url': { Value: 'https://api.charmhub.io', Source: 'default' },
      'logging-config': { Value: '<root>=INFO;unit=DEBUG', Source: 'model' },
      'update-status-hook-interval': { Value: '10s', Source: 'model' },
    });
    expect((await ok('model-config', '--format=yaml')).stdout).toBe(
      'authorized-keys:\n  value: ""\n  source: default\ncharmhub-url:\n  value: https://api.charmhub.io\n  source: default\nlogging-config:\n  value: <root>=INFO;unit=DEBUG\n  source: model\nupdate-status-hook-interval:\n  value: 10s\n  source: model\n',
    );
    expect((await getModel(ctl.store))?.config).toEqual({
      'logging-config': '<root>=INFO;unit=DEBUG',
      'update-status-hook-interval': '10s',
    });
    await ok('model-config', '--reset', 'logging-config');
    await ok('model-config', '--reset', 'update-status-hook-interval');
    expect((await ok('model-config', 'update-status-hook-interval')).stdout).toBe('5m\n');
  });

  it("refuses bad values in Juju's words, and changes nothing", async () => {
    const cases: [string[], number, string][] = [
      [['logging-config=<root>'], 1, `logger specification expected '=', found "<root>"`],
      [['logging-config=<root>=LOUD'], 1, 'unknown severity level "LOUD"'],
      [
        ['update-status-hook-interval=often'],
        1,
        'invalid update status hook interval in model configuration: time: invalid duration "often"',
      ],
      [
        ['update-status-hook-interval=5'],
        1,
        'invalid update status hook interval in model configuration: time: missing unit in duration "5"',
      ],
      [['colour=red'], 1, 'unknown model config key "colour"'],
      // The model's SSH keys (add-ssh-key's) are checked as add-ssh-key checks them.
      [['authorized-keys=ssh-rsa nope'], 1, 'invalid ssh key: ssh-rsa nope'],
      [['nope'], 1, 'key "nope" not found in "default" model.'],
      [['update-status-hook-interval', 'update-status-hook-interval=1m'], 2, 'cannot set and retrieve values simultaneously'],
    ];
    for (const [args, code, message] of cases) {
      const res = await ctl.run(['model-config', ...args]);
      expect(res.code, args.join(' ')).toBe(code);
      expect(res.stderr).toBe(`ERROR ${message}\n`);
    }
    expect((await getModel(ctl.store))?.config).toBeUndefined();
  });
});
