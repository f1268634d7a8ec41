// The client config file ($DROVER_HOME/controllers.json), checked as every command reads it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../cli/config.js';

const home = mkdtempSync(join(tmpdir(), 'drover-config-test-'));
const env = { DROVER_HOME: home };
const path = join(home, 'controllers.json');
const withFile = (value: unknown) => writeFileSync(path, JSON.stringify(value));

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the client config', () => {
  it('reads controllers as written, dropping keys it does not know', async () => {
    withFile({
      current: 'local',
      extra: true,
      controllers: {
        local: { type: 'local', apiUrl: 'http://127.0.0.1:8080', token: 't', dataDir: '/d', pid: 42, model: 'staging', colour: 'red' },
        prod: { type: 'aws', apiUrl: 'https://x.execute-api.eu-west-1.amazonaws.com', region: 'eu-west-1' },
      },
    });
    expect(await readConfig(env)).toEqual({
      current: 'local',
      controllers: {
        local: { type: 'local', apiUrl: 'http://127.0.0.1:8080', token: 't', dataDir: '/d', pid: 42, model: 'staging' },
        prod: { type: 'aws', apiUrl: 'https://x.execute-api.eu-west-1.amazonaws.com', region: 'eu-west-1' },
      },
    });
  });

  it('is empty when there is no file', async () => {
    rmSync(path, { force: true });
    expect(await readConfig(env)).toEqual({ controllers: {} });
  });

  it('refuses a file that is not what drover writes, naming the key and what is wrong', async () => {
    const refusal = async (value: unknown) => {
      if (value !== undefined) withFile(value);
      return (
        await readConfig(env).then(
          () => 'read',
          (e: Error) => e.message,
        )
      ).replace(path, '<path>');
    };
    const local = { type: 'local', apiUrl: 'http://127.0.0.1:8080' };
    expect(await refusal([])).toBe('cannot read <path>: "" must be an object; fix or remove it');
    expect(await refusal({ current: 3, controllers: {} })).toBe('cannot read <path>: "current" must be a string; fix or remove it');
    expect(await refusal({})).toBe('cannot read <path>: "controllers" must be an object; fix or remove it');
    expect(await refusal({ controllers: { a: 'x' } })).toBe('cannot read <path>: "controllers.a" must be an object; fix or remove it');
    expect(await refusal({ controllers: { a: { ...local, type: 'k8s' } } })).toBe(
      'cannot read <path>: "controllers.a.type" must be "local" or "aws"; fix or remove it',
    );
    expect(await refusal({ controllers: { a: { ...local, apiUrl: 'not a url' } } })).toBe(
      'cannot read <path>: "controllers.a.apiUrl" must be a URL; fix or remove it',
    );
    expect(await refusal({ controllers: { a: { ...local, pid: 1.5 } } })).toBe(
      'cannot read <path>: "controllers.a.pid" must be an integer; fix or remove it',
    );
    expect(await refusal({ controllers: { a: { ...local, token: 7 } } })).toBe(
      'cannot read <path>: "controllers.a.token" must be a string; fix or remove it',
    );
    writeFileSync(path, '{');
    expect(await refusal(undefined)).toBe('cannot read <path>: not valid JSON; fix or remove it');
  });
});
