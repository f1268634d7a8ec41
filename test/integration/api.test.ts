import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { packEntries } from '#shared/charmstore/charm-archive.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { apiEvent } from '../support/api-events.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { agentEvent, testAgentKeys } from '../support/agent-events.js';
import { silentLogger } from '../support/silent-logger.js';

const TOKEN = 'local-admin-token';
const MYSQL = 'name: mysql\nseries: [jammy]\nprovides:\n  server: mysql\n';

let store: Store;
let api: ReturnType<typeof createApiHandler>;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  const charmDir = await mkdtemp(join(tmpdir(), 'drover-charms-'));
  api = createApiHandler({
    store,
    charms: localCharmStore(charmDir),
    auth: { kind: 'token', token: TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
  });
});

const call = async (method: string, path: string, body?: unknown, token: string | undefined = TOKEN) => {
  const res = await api(apiEvent(method, path, body, token));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) };
};

/** A rejected request changes nothing. */
async function expectRejected(method: string, path: string, body: unknown, status: number, message: string | RegExp) {
  const before = await dumpTable(store);
  const res = await call(method, path, body);
  expect(res.status).toBe(status);
  expect(res.body.error.message).toMatch(message);
  expect(await dumpTable(store)).toEqual(before);
}

describe('user API', () => {
  it('deploys from charm metadata and shows it in status', async () => {
    const res = await call('POST', '/v1/deploy', {
      charm: {
        metadata: MYSQL,
        archive: packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(MYSQL) }]).toString('base64'),
      },
      numUnits: 2,
    });
    expect(res).toMatchObject({ status: 200, body: { application: 'mysql', units: ['mysql/0', 'mysql/1'] } });
    expect((await getApplication(store, 'mysql'))?.charmArchive).toMatch(/^[0-9a-f]{64}$/);
    const status = await call('GET', '/v1/status');
    expect(Object.keys(status.body.applications)).toEqual(['mysql']);
  });

  it('bad input gets 400 with a message that says what was wrong', async () => {
    await expectRejected('POST', '/v1/deploy', '{not json', 400, 'the request body is not valid JSON');
    await expectRejected('POST', '/v1/deploy', { numUnits: 1 }, 400, /invalid deploy request: "charm"/);
    await expectRejected(
      'POST',
      '/v1/deploy',
      { charm: { metadata: MYSQL }, constraints: 'mem=lots' },
      400,
      'bad "mem" constraint: must be a non-negative float with optional M/G/T/P suffix',
    );
    await expectRejected('POST', '/v1/deploy', { charm: { metadata: 'name: [' } }, 400, /^metadata.yaml: invalid YAML/);
    // The archive is checked as agents will unpack it, before anything is stored.
    const notAnArchive = Buffer.from('tarball').toString('base64');
    await expectRejected('POST', '/v1/deploy', { charm: { metadata: MYSQL, archive: notAnArchive } }, 400, /^invalid charm archive: /);
    await expectRejected('POST', '/v1/add-unit', { application: 'mysql', count: 0 }, 400, /"count"/);
  });

  it('constraints named or valued like built-in object properties are refused, not stored (docs/reliability.md, defect #8)', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await expectRejected(
      'POST',
      '/v1/set-constraints',
      { application: 'mysql', constraints: 'constructor=1' },
      400,
      'unknown constraint "constructor"',
    );
    await expectRejected(
      'POST',
      '/v1/set-constraints',
      { application: 'mysql', constraints: 'allocate-public-ip=__proto__' },
      400,
      `bad "allocate-public-ip" constraint: must be 'true' or 'false'`,
    );
    await expectRejected('POST', '/v1/set-model-constraints', { constraints: '__proto__=1' }, 400, 'unknown constraint "__proto__"');
    expect((await call('POST', '/v1/get-constraints', { application: 'mysql' })).body).toEqual({ constraints: 'arch=amd64' });
  });

  it("a conflict with state gets 409 with Juju's message", async () => {
    await call('POST', '/v1/deploy', { charm: { metadata: MYSQL } });
    await expectRejected(
      'POST',
      '/v1/deploy',
      { charm: { metadata: MYSQL } },
      409,
      'cannot add application "mysql": application already exists',
    );
  });

  it('an unknown application is 404', async () => {
    await expectRejected(
      'POST',
      '/v1/add-unit',
      { application: 'nope' },
      404,
      'cannot add unit to application "nope": application "nope" not found',
    );
  });

  it('refuses a caller without the token', async () => {
    const res = await call('GET', '/v1/status', undefined, 'wrong');
    expect(res.status).toBe(403);
  });

  it('bulk removals answer per entity, as Juju prints a line per entity', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    const res = await call('POST', '/v1/remove-unit', { units: ['mysql/0', 'mysql/7'] });
    expect(res.body.results).toEqual([
      { entity: 'mysql/0', ok: true, message: 'removing unit mysql/0' },
      { entity: 'mysql/7', ok: false, message: 'removing unit mysql/7 failed: unit "mysql/7" does not exist' },
    ]);
  });

  it('config with no assignments shows the settings, Juju-style', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    const res = await call('POST', '/v1/config', { application: 'wordpress' });
    expect(res.body).toEqual({
      application: 'wordpress',
      'application-config': {
        trust: {
          default: false,
          description: 'Does this application have access to trusted credentials',
          source: 'default',
          type: 'bool',
          value: false,
        },
      },
      charm: 'wordpress',
      settings: { 'blog-title': { default: 'My Title', description: 'the title', source: 'default', type: 'string', value: 'My Title' } },
    });
  });
});

describe('agent API', () => {
  async function twoMachines() {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const { id, key } = await addRelation(store, ['wordpress', 'mysql']);
    await setAgentCredentialHash(store, '0', hashAgentCredential('secret-0'), 0);
    await setAgentCredentialHash(store, '1', hashAgentCredential('secret-1'), 0);
    await enterScope(store, 'wordpress/1', key, { 'private-address': '10.0.0.2' });
    return { id, key };
  }
  const asMachine = (machine: string, secret: string) => async (op: string, body: unknown) => {
    const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body, { machine, secret }));
    return { status: res.statusCode, body: JSON.parse(String(res.body)) };
  };

  it("machine 0's credential works on machine 0 and its units", async () => {
    await twoMachines();
    const agent = asMachine('0', 'secret-0');
    const view = await agent('view', {});
    expect(view.status).toBe(200);
    expect(view.body.units.map((u: { name: string }) => u.name)).toEqual(['wordpress/0']);
    expect(view.body.machine).not.toHaveProperty('agentCredentialHash');
    expect((await agent('set-unit-status', { unit: 'wordpress/0', agent: { current: 'idle' } })).status).toBe(200);
  });

  it("machine 0's credential is refused on machine 1, its units, and their settings", async () => {
    const { id, key } = await twoMachines();
    const agent = asMachine('0', 'secret-0');
    const before = await dumpTable(store);
    expect((await agent('set-unit-status', { unit: 'wordpress/1', agent: { current: 'idle' } })).status).toBe(403);
    expect((await agent('enter-scope', { unit: 'wordpress/1', relation: key, settings: {} })).status).toBe(403);
    expect((await agent('write-settings', { unit: 'wordpress/1', relationId: id, changes: { a: 'b' } })).status).toBe(403);
    expect((await agent('read-settings', { unit: 'wordpress/1', relationId: id, of: 'wordpress/1' })).status).toBe(403);
    expect((await agent('remove-unit', { unit: 'wordpress/1' })).status).toBe(403);
    expect(await dumpTable(store)).toEqual(before);
  });

  it('a wrong secret, or a user token, is refused on the agent routes', async () => {
    await twoMachines();
    expect((await asMachine('1', 'secret-0')('view', {})).status).toBe(403);
    const res = await api(apiEvent('POST', '/v1/agent/view', {}, TOKEN));
    expect(res.statusCode).toBe(403);
  });

  it('a unit may read the settings of the relations its application is in', async () => {
    const { id } = await twoMachines();
    const res = await asMachine('0', 'secret-0')('read-settings', { unit: 'wordpress/0', relationId: id, of: 'wordpress/1' });
    expect(res).toMatchObject({ status: 200, body: { settings: { 'private-address': '10.0.0.2' } } });
  });
});
