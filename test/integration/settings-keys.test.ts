// Keys a charm or a user chooses are stored and read back exactly, through every path that takes
// them (docs/reliability.md, "Defects found by a hostile probe, and their regression tests"):
// names every JavaScript object inherits (`constructor`, `toString`, `hasOwnProperty`) are keys
// like any other, and `__proto__`, which no stored map can hold, is refused with a 400 naming it,
// the same way everywhere.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getRelation } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { agentEvent, testAgentKeys } from '../support/agent-events.js';
import { apiEvent } from '../support/api-events.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

const TOKEN = 'user-token';
const INHERITED = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const REFUSED = 'key "__proto__" cannot be stored; choose another name';

/** A charm whose options are named as the keys: config and deploy --config set them. */
const METADATA = 'name: keys\nseries: [jammy]\npeers:\n  ring: keys-ring\n';
const CONFIG = `options:\n${INHERITED.map((k) => `  ${k}: {type: string}\n`).join('')}`;

let store: Store;
let api: ReturnType<typeof createApiHandler>;
let logged: unknown[];
let relationId: number;

const call = async (event: Parameters<typeof api>[0] | Promise<Parameters<typeof api>[0]>) => {
  const res = await api(await event);
  return { status: res.statusCode, body: JSON.parse(String(res.body)) as Record<string, unknown> & { error?: { message: string } } };
};
/** A body as JSON text, so that `__proto__` reaches the API as a key, as it does over the wire. */
const raw = (text: string) => JSON.parse(text) as unknown;
const user = (op: string, body: unknown) => call(apiEvent('POST', `/v1/${op}`, body, TOKEN));
const agent = (op: string, body: unknown) => call(agentEvent('POST', `/v1/agent/${op}`, body, { machine: '0' }));
const commit = (extra: Record<string, unknown>) => agent('commit-hook', { unit: 'keys/0', settings: [], ports: [], ...extra });
const asMap = (keys: string[], value: (k: string) => string) => Object.fromEntries(keys.map((k) => [k, value(k)]));

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  logged = [];
  api = createApiHandler({
    store,
    charms: localCharmStore(await mkdtemp(join(tmpdir(), 'drover-keys-'))),
    auth: { kind: 'token', token: TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: { ...silentLogger, error: (...args: unknown[]) => logged.push(args) } as never,
  });
  const deployed = await user('deploy', {
    charm: { metadata: METADATA, config: CONFIG },
    numUnits: 1,
    config: asMap(INHERITED, (k) => `deployed ${k}`),
  });
  expect(deployed.status).toBe(200);
  await setAgentCredentialHash(store, '0', hashAgentCredential('secret-0'), 0);
  // The peer relation deploy made, which the unit enters as its agent would.
  const relation = (await getRelation(store, 'keys:ring'))!;
  relationId = relation.id;
  await enterScope(store, 'keys/0', relation.key, {});
  await claimLeadership(store, 'keys/0', 60_000);
});

describe('keys every object inherits are stored and read back exactly', () => {
  it('deploy --config and config', async () => {
    const view = async () =>
      (await user('config', { application: 'keys' })).body.settings as Record<string, { value?: string; source: string }>;
    for (const key of INHERITED) expect((await view())[key]).toMatchObject({ value: `deployed ${key}`, source: 'user' });
    expect((await user('config', { application: 'keys', set: asMap(INHERITED, (k) => `set ${k}`) })).status).toBe(200);
    for (const key of INHERITED) expect((await view())[key]).toMatchObject({ value: `set ${key}`, source: 'user' });
    expect((await user('config', { application: 'keys', reset: INHERITED })).status).toBe(200);
    for (const key of INHERITED) expect((await view())[key]).toEqual({ source: 'unset', type: 'string' });
    expect(logged).toEqual([]);
  });

  it('relation-set and relation-get (the unit bag, direct and with a hook)', async () => {
    const direct = await agent('write-settings', { unit: 'keys/0', relationId, changes: { constructor: 'direct' } });
    expect(direct.status).toBe(200);
    const hook = await commit({ settings: [{ relationId, changes: asMap(INHERITED.slice(1), (k) => `unit ${k}`) }] });
    expect(hook.status).toBe(200);
    const read = await agent('read-settings', { unit: 'keys/0', relationId, of: 'keys/0' });
    expect(read.body.settings).toEqual({ constructor: 'direct', ...asMap(INHERITED.slice(1), (k) => `unit ${k}`) });
    expect(logged).toEqual([]);
  });

  it('relation-set --app and relation-get --app', async () => {
    expect((await commit({ appSettings: [{ relationId, changes: asMap(INHERITED, (k) => `app ${k}`) }] })).status).toBe(200);
    const read = await agent('read-app-settings', { unit: 'keys/0', relationId, application: 'keys' });
    expect(read.body.settings).toEqual(asMap(INHERITED, (k) => `app ${k}`));
  });

  it('state-set and state-get', async () => {
    expect((await commit({ charmState: asMap(INHERITED, (k) => `state ${k}`) })).status).toBe(200);
    expect((await agent('unit-state', { unit: 'keys/0' })).body.state).toEqual(asMap(INHERITED, (k) => `state ${k}`));
    expect((await commit({ charmState: { constructor: null } })).status).toBe(200);
    expect(Object.keys((await agent('unit-state', { unit: 'keys/0' })).body.state as object).sort()).toEqual(INHERITED.slice(1).sort());
  });

  it('leader-set and leader-get', async () => {
    expect((await commit({ leaderSettings: asMap(INHERITED, (k) => `leader ${k}`) })).status).toBe(200);
    expect((await agent('leader-settings', { unit: 'keys/0' })).body.settings).toEqual(asMap(INHERITED, (k) => `leader ${k}`));
  });

  it('model-config refuses them as unknown keys, as any other unknown key', async () => {
    for (const key of INHERITED) {
      const res = await user('model-config', { set: { [key]: 'x' } });
      expect([res.status, res.body.error?.message]).toEqual([400, `unknown model config key "${key}"`]);
    }
  });
});

describe('__proto__ is refused with a 400 naming it, changing nothing', () => {
  const cases: [string, () => ReturnType<typeof call>, string][] = [
    [
      'deploy --config',
      () => user('deploy', raw(`{"charm":{"metadata":"name: other\\nseries: [jammy]\\n"},"config":{"__proto__":"x"}}`)),
      'deploy',
    ],
    ['config', () => user('config', raw(`{"application":"keys","set":{"__proto__":"x"}}`)), 'config'],
    ['model-config', () => user('model-config', raw(`{"set":{"__proto__":"x"}}`)), 'model-config'],
    ['relation-set', () => agent('write-settings', raw(`{"unit":"keys/0","relationId":0,"changes":{"__proto__":"x"}}`)), 'write-settings'],
    ['relation-set in a hook', () => commit(raw(`{"settings":[{"relationId":0,"changes":{"__proto__":"x"}}]}`) as never), 'commit-hook'],
    ['relation-set --app', () => commit(raw(`{"appSettings":[{"relationId":0,"changes":{"__proto__":"x"}}]}`) as never), 'commit-hook'],
    ['state-set', () => commit(raw(`{"charmState":{"__proto__":"x"}}`) as never), 'commit-hook'],
    ['leader-set', () => commit(raw(`{"leaderSettings":{"__proto__":"x"}}`) as never), 'commit-hook'],
    [
      'action results',
      () => agent('finish-task', raw(`{"unit":"keys/0","task":"1","status":"completed","results":{"a":{"__proto__":"x"}}}`)),
      'finish-task',
    ],
  ];
  it.each(cases)('%s', async (_path, send, op) => {
    const before = await dumpTable(store);
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toMatch(new RegExp(`^invalid ${op} request: (".*" )?${REFUSED.replace(/[()]/g, '\\$&')}$`));
    expect(await dumpTable(store)).toEqual(before);
    expect(logged).toEqual([]);
  });

  it('a charm option named __proto__ is refused when the charm is read', async () => {
    const res = await user('deploy', {
      charm: { metadata: 'name: other\nseries: [jammy]\n', config: 'options:\n  __proto__: {type: string}\n' },
    });
    expect([res.status, res.body.error?.message]).toEqual([400, `config.yaml: "options" ${REFUSED}`]);
  });
});
