// The unit agent's memory, hook environment and shared view.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { availabilityZoneOf, hookEnvironment, newContextId } from '../../../agent/uniter/hook-env.js';
import { failureData, hookName, runningMessage } from '../../../agent/uniter/hooks.js';
import { freshState, loadState, saveState } from '../../../agent/uniter/local-state.js';
import { ViewSource, type AgentView } from '../../../agent/view.js';

const joined = { kind: 'relation-joined' as const, relation: 'a:db b:db', relationId: 4, endpoint: 'db', remoteUnit: 'mysql/1' };

describe('hooks', () => {
  it('are named after the charm relation, and described as Juju shows them', () => {
    expect(hookName(joined)).toBe('db-relation-joined');
    expect(runningMessage(joined)).toBe('running db-relation-joined hook for mysql/1');
    expect(runningMessage({ kind: 'install' })).toBe('running install hook');
    expect(failureData(joined)).toEqual({ hook: 'db-relation-joined', 'relation-id': 4, 'remote-unit': 'mysql/1' });
  });
});

describe('the hook environment', () => {
  const base = {
    base: { PATH: '/usr/bin', HOME: '/home/u', DROVER_AGENT_CREDENTIAL: 'secret' },
    toolsDir: '/m/tools',
    charmDir: '/m/units/wordpress-0/charm',
    unitName: 'wordpress/0',
    contextId: 'wordpress/0-install-1',
    secret: 'per-hook-secret',
    socketAddress: '127.0.0.1:40123',
    apiAddresses: ['10.0.0.1:443'],
    modelName: 'default',
    machineId: '3',
  };
  it("sets the seed's variables, prefixes PATH with the tools, and leaves the agent's secrets out", () => {
    const env = hookEnvironment({ ...base, hook: { kind: 'install' } });
    expect(env).toMatchObject({
      PATH: '/m/tools:/usr/bin',
      HOME: '/home/u',
      CHARM_DIR: base.charmDir,
      JUJU_CHARM_DIR: base.charmDir,
      JUJU_UNIT_NAME: 'wordpress/0',
      JUJU_CONTEXT_ID: 'wordpress/0-install-1',
      DROVER_HOOK_SECRET: 'per-hook-secret',
      JUJU_AGENT_SOCKET: '127.0.0.1:40123',
      JUJU_AGENT_SOCKET_ADDRESS: '127.0.0.1:40123',
      JUJU_AGENT_SOCKET_NETWORK: 'tcp',
      JUJU_API_ADDRESSES: '10.0.0.1:443',
      JUJU_ENV_NAME: 'default',
      JUJU_MODEL_NAME: 'default',
      JUJU_HOOK_NAME: 'install',
      JUJU_MACHINE_ID: '3',
    });
    expect(env).not.toHaveProperty('DROVER_AGENT_CREDENTIAL');
    expect(env).not.toHaveProperty('JUJU_RELATION');
  });
  it('adds JUJU_RELATION, JUJU_RELATION_ID (name:id), JUJU_REMOTE_UNIT and JUJU_REMOTE_APP in relation hooks', () => {
    expect(hookEnvironment({ ...base, hook: joined, remoteApplication: 'mysql' })).toMatchObject({
      JUJU_RELATION: 'db',
      JUJU_RELATION_ID: 'db:4',
      JUJU_REMOTE_UNIT: 'mysql/1',
      JUJU_REMOTE_APP: 'mysql',
      JUJU_HOOK_NAME: 'db-relation-joined',
    });
  });
  it('adds JUJU_SECRET_ID and JUJU_SECRET_LABEL (empty when none) in secret hooks, and JUJU_SECRET_REVISION when there is one', () => {
    const uri = 'secret:cu5ff0d8kgbs73a1opb0';
    expect(hookEnvironment({ ...base, hook: { kind: 'secret-changed', uri, label: 'db-creds', revision: 3 } })).toMatchObject({
      JUJU_HOOK_NAME: 'secret-changed',
      JUJU_SECRET_ID: uri,
      JUJU_SECRET_LABEL: 'db-creds',
      JUJU_SECRET_REVISION: '3',
    });
    const rotate = hookEnvironment({ ...base, hook: { kind: 'secret-rotate', uri, rotateTime: '2025-01-01T00:00:00.000Z' } });
    expect(rotate).toMatchObject({ JUJU_HOOK_NAME: 'secret-rotate', JUJU_SECRET_ID: uri, JUJU_SECRET_LABEL: '' });
    expect(rotate).not.toHaveProperty('JUJU_SECRET_REVISION');
    expect(hookEnvironment({ ...base, hook: { kind: 'install' } })).not.toHaveProperty('JUJU_SECRET_ID');
  });
  it("sets Juju 3.6's model, SLA, zone, proxy and locale variables", () => {
    const env = hookEnvironment({
      ...base,
      base: { ...base.base, LANG: 'de_DE.UTF-8', TERM: 'xterm' },
      modelUuid: '6a1f8c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      availabilityZone: 'us-east-1a',
      principal: 'mysql/0',
      proxies: { http: 'http://proxy:3128', noProxy: '10.0.0.0/8' },
      hook: { kind: 'install' },
    });
    expect(env).toMatchObject({
      JUJU_MODEL_UUID: '6a1f8c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      JUJU_AVAILABILITY_ZONE: 'us-east-1a',
      JUJU_PRINCIPAL_UNIT: 'mysql/0',
      JUJU_SLA: 'unsupported',
      JUJU_VERSION: '3.6.12',
      CLOUD_API_VERSION: '',
      JUJU_CHARM_HTTP_PROXY: 'http://proxy:3128',
      JUJU_CHARM_HTTPS_PROXY: '',
      JUJU_CHARM_FTP_PROXY: '',
      JUJU_CHARM_NO_PROXY: '10.0.0.0/8',
      // Juju's legacy proxy variables, both cases, only for the proxies that are set.
      http_proxy: 'http://proxy:3128',
      HTTP_PROXY: 'http://proxy:3128',
      no_proxy: '10.0.0.0/8',
      NO_PROXY: '10.0.0.0/8',
      // Juju's ubuntuEnv wins over the agent's locale and terminal.
      LANG: 'C.UTF-8',
      TERM: 'tmux-256color',
      APT_LISTCHANGES_FRONTEND: 'none',
      DEBIAN_FRONTEND: 'noninteractive',
    });
    expect(env).not.toHaveProperty('https_proxy');
    expect(env).not.toHaveProperty('JUJU_DEPARTING_UNIT');
  });
  it('sets JUJU_DEPARTING_UNIT in relation-departed hooks only', () => {
    const departed = { ...joined, kind: 'relation-departed' as const, departingUnit: 'mysql/1' };
    expect(hookEnvironment({ ...base, hook: departed }).JUJU_DEPARTING_UNIT).toBe('mysql/1');
    expect(hookEnvironment({ ...base, hook: joined })).not.toHaveProperty('JUJU_DEPARTING_UNIT');
  });
  it("reads the availability zone from the machine's hardware line", () => {
    expect(availabilityZoneOf('arch=amd64 cores=2 mem=4096M availability-zone=eu-west-1c')).toBe('eu-west-1c');
    expect(availabilityZoneOf('arch=amd64')).toBeUndefined();
    expect(availabilityZoneOf(undefined)).toBeUndefined();
  });
  it('names contexts <unit>-<hook>-<random>', () => {
    expect(newContextId('wordpress/0', joined)).toMatch(/^wordpress\/0-db-relation-joined-\d+$/);
  });
});

describe('local state', () => {
  it('is saved atomically and read back, without the ephemeral recovering flag', () => {
    const dir = mkdtempSync(join(tmpdir(), 'uniter-state-'));
    expect(loadState(dir)).toEqual(freshState());
    const state = { ...freshState(), installed: true, inFlight: { kind: 'start' as const }, recovering: true };
    saveState(dir, state);
    expect(loadState(dir)).toEqual({ ...freshState(), installed: true, inFlight: { kind: 'start' } });
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});

describe('the shared view', () => {
  it('coalesces concurrent refreshes, and a refresh always reads after it was asked for', async () => {
    let reads = 0;
    let release: () => void = () => undefined;
    const source = new ViewSource(async () => {
      reads++;
      await new Promise<void>((r) => (release = r));
      return { model: String(reads) } as AgentView;
    });
    const first = source.refresh();
    await new Promise((r) => setImmediate(r));
    const second = source.refresh();
    const third = source.refresh();
    expect(second).toBe(third);
    release();
    expect((await first).model).toBe('1');
    await new Promise((r) => setImmediate(r));
    release();
    expect((await second).model).toBe('2');
    expect(reads).toBe(2);
  });

  it("applies a change's outcome only to the view it was made against, never over a newer read", async () => {
    let reads = 0;
    const source = new ViewSource(async () => ({ model: `read ${++reads}` }) as AgentView);
    await source.refresh();
    const amended = (view: AgentView) => ({ ...view, model: `${view.model}, amended` });
    // A claim made against read 1, answered with no read in between: applied.
    source.amend(amended, source.generation);
    expect(source.current?.model).toBe('read 1, amended');
    // A claim made against that view, while a hint's read completed: the newer read stays as it is.
    const since = source.generation;
    await source.refresh();
    source.amend(amended, since);
    expect(source.current?.model).toBe('read 2');
    // An outcome no later read can contradict (a lease granted to this unit) is applied whatever was read.
    await source.refresh();
    source.amend(amended);
    expect(source.current?.model).toBe('read 3, amended');
  });
});
