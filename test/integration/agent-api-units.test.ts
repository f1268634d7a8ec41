// The agent API's additions for the unit agents: relation-units, set-unit-ports and log; and the
// user route debug-log that reads what agents logged.
import { beforeEach, describe, expect, it } from 'vitest';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getSettings, getUnit } from '#shared/state/engine/reads.js';
import { writeSettings } from '#shared/state/operations/relation-settings.js';
import type { Store } from '#shared/state/engine/store.js';
import { apiEvent } from '../support/api-events.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { API_TOKEN, testApiHandler } from '../support/api-handler.js';
import { agentEvent } from '../support/agent-events.js';

const TOKEN = API_TOKEN;
let store: Store;
let api: Awaited<ReturnType<typeof testApiHandler>>;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  api = await testApiHandler(store);
});

const agent = (machine: string) => async (op: string, body: unknown) => {
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body, { machine }));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) };
};
async function credentials(...machines: string[]) {
  for (const m of machines) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
}

describe('relation-units', () => {
  it('lists the units of the other side in scope with their settings versions, a page at a time', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.mysql, numUnits: 3 });
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    await credentials('0');
    for (const u of ['wordpress/0', 'mysql/0', 'mysql/1', 'mysql/2']) await enterScope(store, u, key, { 'private-address': u });
    await writeSettings(store, id, 'mysql/1', { ready: 'yes' });
    const first = await agent('0')('relation-units', { unit: 'wordpress/0', relation: key, limit: 2 });
    expect(first.status).toBe(200);
    const second = await agent('0')('relation-units', { unit: 'wordpress/0', relation: key, cursor: first.body.cursor });
    // Each once, in no order across the scope's shards (shared/state/engine/scope-listing.ts): the
    // agent orders them itself (agent/uniter/decide.ts).
    const members = [...first.body.members, ...second.body.members] as { unit: string }[];
    expect(members.sort((a, b) => a.unit.localeCompare(b.unit))).toEqual([
      { unit: 'mysql/0', version: 1 },
      { unit: 'mysql/1', version: 2 },
      { unit: 'mysql/2', version: 1 },
    ]);
    expect(second.body.cursor).toBeUndefined();
  });

  it("a peer sees the other peers; a container relation only the unit's own principal or subordinate", async () => {
    await deploy(store, { charm: charms.riak, numUnits: 2 });
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await deploy(store, { charm: charms.logging, numUnits: 0 });
    await credentials('0', '2');
    await enterScope(store, 'riak/0', 'riak:ring', {});
    await enterScope(store, 'riak/1', 'riak:ring', {});
    expect((await agent('0')('relation-units', { unit: 'riak/0', relation: 'riak:ring' })).body.members).toEqual([
      { unit: 'riak/1', version: 1 },
    ]);
    const { key } = await addRelation(store, ['logging:logging-directory', 'wordpress:logging-dir']);
    const a = await enterScope(store, 'wordpress/0', key, {});
    const b = await enterScope(store, 'wordpress/1', key, {});
    await enterScope(store, a.subordinate!, key, {});
    await enterScope(store, b.subordinate!, key, {});
    const wp0 = await getUnit(store, 'wordpress/0');
    expect((await agent(wp0!.machine!)('relation-units', { unit: 'wordpress/0', relation: key })).body.members).toEqual([
      { unit: a.subordinate, version: 1 },
    ]);
    expect((await agent(wp0!.machine!)('relation-units', { unit: a.subordinate, relation: key })).body.members).toEqual([
      { unit: 'wordpress/0', version: 1 },
    ]);
  });

  it("is refused for another machine's unit, or a relation the unit's application is not in", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await deploy(store, { charm: charms.riak, numUnits: 1 });
    await credentials('0');
    expect((await agent('0')('relation-units', { unit: 'wordpress/1', relation: 'riak:ring' })).status).toBe(403);
    expect((await agent('0')('relation-units', { unit: 'wordpress/0', relation: 'riak:ring' })).status).toBe(403);
  });
});

describe('set-unit-ports', () => {
  it("commits a hook's open-port and close-port calls to the unit's open ports", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await credentials('0');
    const open = await agent('0')('set-unit-ports', {
      unit: 'wordpress/0',
      changes: [
        { action: 'open', range: '80' },
        { action: 'open', range: '443/tcp' },
        { action: 'close', range: '80/tcp' },
      ],
    });
    expect(open.body).toEqual({ openPorts: ['443/tcp'] });
    expect((await getUnit(store, 'wordpress/0'))?.openPorts).toEqual(['443/tcp']);
    const bad = await agent('0')('set-unit-ports', { unit: 'wordpress/0', changes: [{ action: 'open', range: 'http' }] });
    expect(bad.status).toBe(400);
  });
});

describe('commit-hook', () => {
  it("writes a successful hook's relation settings and ports together", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    await credentials('0');
    await enterScope(store, 'wordpress/0', key, { 'private-address': '10.0.0.1' });
    const res = await agent('0')('commit-hook', {
      unit: 'wordpress/0',
      settings: [{ relationId: id, changes: { user: 'wp', 'private-address': '' } }],
      ports: [{ action: 'open', range: '80' }],
    });
    expect(res.body).toEqual({ settingsVersions: { [id]: 2 }, openPorts: ['80/tcp'] });
    expect((await getSettings(store, id, 'wordpress/0'))?.settings).toEqual({ user: 'wp' });
  });

  it('writes nothing when any part is refused', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.mysql, numUnits: 1, to: ['0'] });
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    await credentials('0');
    await enterScope(store, 'wordpress/0', key, { 'private-address': '10.0.0.1' });
    expect((await agent('0')('set-unit-ports', { unit: 'mysql/0', changes: [{ action: 'open', range: '80' }] })).status).toBe(200);
    const res = await agent('0')('commit-hook', {
      unit: 'wordpress/0',
      settings: [{ relationId: id, changes: { user: 'wp' } }],
      ports: [{ action: 'open', range: '80' }],
    });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe('port ranges 80/tcp ("mysql/0") and 80/tcp ("wordpress/0") conflict');
    expect((await getSettings(store, id, 'wordpress/0'))?.settings).toEqual({ 'private-address': '10.0.0.1' });
  });
});

describe('agent logs and debug-log', () => {
  it('keeps the lines agents send, under their entity, and debug-log shows them as Juju prints them', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await credentials('0');
    const time = '2024-05-01T10:11:12.000Z';
    await agent('0')('log', { unit: 'wordpress/0', lines: [{ time, level: 'INFO', module: 'unit.wordpress/0.juju-log', message: 'hi' }] });
    await agent('0')('log', { lines: [{ time, level: 'DEBUG', module: 'juju.worker.machiner', message: 'machine says' }] });
    const user = async (query: string) => {
      const event = { ...apiEvent('GET', '/v1/debug-log', undefined, TOKEN), rawQueryString: query };
      const res = await api(event);
      return { status: res.statusCode, body: JSON.parse(String(res.body)) };
    };
    expect((await user('limit=10')).body.lines).toEqual([
      'unit-wordpress-0: 10:11:12 INFO unit.wordpress/0.juju-log hi',
      'machine-0: 10:11:12 DEBUG juju.worker.machiner machine says',
    ]);
    expect((await user('include=wordpress/0')).body.lines).toEqual(['unit-wordpress-0: 10:11:12 INFO unit.wordpress/0.juju-log hi']);
    expect((await user('level=INFO&include=unit-wordpress-0,machine-0')).body.lines).toHaveLength(1);
    const replay = await user('limit=1');
    await agent('0')('log', { lines: [{ time, level: 'INFO', module: 'm', message: 'later' }] });
    expect((await user(`after=${replay.body.cursor}`)).body.lines).toEqual(['machine-0: 10:11:12 INFO m later']);
    expect((await user('level=LOUD')).status).toBe(400);
  });

  it('refuses log lines for a unit on another machine', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await credentials('0');
    const res = await agent('0')('log', {
      unit: 'wordpress/1',
      lines: [{ time: new Date().toISOString(), level: 'INFO', module: 'm', message: 'x' }],
    });
    expect(res.status).toBe(403);
  });
});

describe('view', () => {
  it("names the model, for the hooks' JUJU_MODEL_NAME", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await credentials('0');
    expect((await agent('0')('view', {})).body.model).toBe('default');
  });
});
