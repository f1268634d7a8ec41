// Input a client chose never makes a 5xx: each case of the hostile probe (docs/reliability.md, defect #7) answers
// 4xx with a message that says what was wrong, logs no stack trace, and changes nothing.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { startApiServer } from '../../embedded/api-server.js';
import { createApiHandler } from '../../functions/api/handler.js';
import { MAX_NAMES_PER_REQUEST, MAX_REQUEST_BODY_BYTES } from '#shared/api/fields.js';
import { userOperations } from '#shared/api/requests.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { isDroverError, errorMessage } from '#shared/domain/errors.js';
import { MAX_SETTINGS_BYTES } from '#shared/domain/item-size.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { enqueueOperation } from '#shared/state/operations/action-tasks.js';
import { EXEC_ACTION } from '#shared/domain/operations.js';
import { isItemTooLarge } from '#shared/state/engine/item-too-large.js';
import { keyOf } from '#shared/state/engine/keys.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getSettings } from '#shared/state/engine/reads.js';
import { runOperation } from '#shared/state/engine/run-operation.js';
import type { Store } from '#shared/state/engine/store.js';
import { agentEvent, testAgentKeys, type Signature } from '../support/agent-events.js';
import { apiEvent } from '../support/api-events.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

const TOKEN = 'user-token';
let store: Store;
let api: ReturnType<typeof createApiHandler>;
/** What the handler logged as an internal error: a stack trace per 500. */
let logged: unknown[];
let relation: { key: string; id: number };

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  logged = [];
  api = createApiHandler({
    store,
    charms: localCharmStore(await mkdtemp(join(tmpdir(), 'drover-input-'))),
    auth: { kind: 'token', token: TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: { ...silentLogger, error: (...args: unknown[]) => logged.push(args) } as never,
  });
  await deploy(store, { charm: charms.wordpress, numUnits: 1 });
  await deploy(store, { charm: charms.mysql, numUnits: 1 });
  relation = await addRelation(store, ['wordpress', 'mysql']);
  await enterScope(store, 'wordpress/0', relation.key, { 'private-address': '10.0.0.1' });
  await setAgentCredentialHash(store, '0', hashAgentCredential('secret-0'), 0);
});

/** The request is refused with `status` and `message`, logs nothing, and leaves every item as it was. */
async function expectRefused(event: APIGatewayProxyEventV2 | Promise<APIGatewayProxyEventV2>, status: number, message: string | RegExp) {
  const before = await dumpTable(store);
  const res = await api(await event);
  expect(res.statusCode).toBe(status);
  expect((JSON.parse(String(res.body)) as { error: { message: string } }).error.message).toMatch(message);
  expect(logged).toEqual([]);
  expect(await dumpTable(store)).toEqual(before);
}

const user = (op: string, body: unknown) => apiEvent('POST', `/v1/${op}`, body, TOKEN);
const agent = (op: string, body: unknown, by: Signature = { machine: '0' }) => agentEvent('POST', `/v1/agent/${op}`, body, by);
const userGet = (op: string, query: string) => ({ ...apiEvent('GET', `/v1/${op}`, undefined, TOKEN), rawQueryString: query });
const NOT_SIGNED = "permission denied: the request is not signed by its machine's agent";
const sizeRefusal = /^max allowed size \(\d+\) of .* exceeded: it would take \d+ bytes \(a stored item holds at most 400 KB\)/;

describe('credentials', () => {
  it('an agent request naming a machine id no machine could have is refused without a lookup', async () => {
    await expectRefused(agent('view', {}, { machine: '1'.repeat(3000), secret: 'x' }), 403, NOT_SIGNED);
    await expectRefused(agent('view', {}, { machine: '0', secret: 'x'.repeat(5000) }), 403, NOT_SIGNED);
  });
});

describe('keys DynamoDB would refuse', () => {
  it('an empty relation-settings key is refused, wherever settings are written', async () => {
    const empty = /key "": a key cannot be empty; give key=value$/;
    await expectRefused(agent('write-settings', { unit: 'wordpress/0', relationId: relation.id, changes: { '': 'x' } }), 400, empty);
    await expectRefused(
      agent('commit-hook', { unit: 'wordpress/0', settings: [{ relationId: relation.id, changes: { '': 'x' } }], ports: [] }),
      400,
      empty,
    );
    await expectRefused(agent('enter-scope', { unit: 'wordpress/0', relation: relation.key, settings: { '': 'x' } }), 400, empty);
    await expectRefused(agent('commit-hook', { unit: 'wordpress/0', settings: [], ports: [], leaderSettings: { '': 'x' } }), 400, empty);
    await expectRefused(user('config', { application: 'wordpress', set: { '': 'x' } }), 400, empty);
  });

  it('free-form data (status data, action parameters and results) with an empty key or nested too deep is refused', async () => {
    await expectRefused(
      agent('set-unit-status', { unit: 'wordpress/0', workload: { current: 'active', data: { '': 'x' } } }),
      400,
      /"workload.data" key "": a key cannot be empty/,
    );
    const queued = await enqueueOperation(store, {
      action: EXEC_ACTION,
      units: ['wordpress/0'],
      parameters: { command: 'true', timeout: 300 },
    });
    const task = queued.tasks[0]!.id;
    expect((await api(await agent('start-task', { unit: 'wordpress/0', task }))).statusCode).toBe(200);
    const finish = (results: unknown) => agent('finish-task', { unit: 'wordpress/0', task, status: 'completed', results });
    await expectRefused(finish({ outer: { inner: { '': 1 } } }), 400, /"results": outer.inner has an empty key; every key needs a name/);
    // Numbers JSON allows and DynamoDB does not store (found by the API fuzzer).
    const range = /a number must be 0, or between 1e-130 and 9007199254740991 in magnitude/;
    await expectRefused(finish({ n: { big: 1e300 } }), 400, range);
    await expectRefused(
      agent('set-unit-status', { unit: 'wordpress/0', workload: { current: 'active', data: { hook: 9007199254740994 } } }),
      400,
      range,
    );
    await expectRefused(user('exec', { units: ['wordpress/0'], command: 'true', timeout: 1e-200 }), 400, range);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { a: deep };
    await expectRefused(finish({ d: deep }), 400, /"results": d(\.a)+ is nested more than 16 levels deep/);
    await expectRefused(
      user('run', { units: ['wordpress/0'], action: EXEC_ACTION, parameters: { command: 'true', timeout: 3, d: deep } }),
      400,
      /"parameters": d(\.a)+ is nested more than 16 levels deep/,
    );
  });

  it('ids and names longer than any key are refused by their schema', async () => {
    await expectRefused(
      agent('start-task', { unit: 'wordpress/0', task: '9'.repeat(5000) }),
      400,
      /task id must be a number of at most 18 digits/,
    );
    await expectRefused(userGet('show-task', `id=${'9'.repeat(5000)}`), 400, /task id must be a number of at most 18 digits/);
    await expectRefused(userGet('show-operation', `id=${'9'.repeat(5000)}`), 400, /operation id must be a number of at most 18 digits/);
    await expectRefused(agent('leave-scope', { unit: 'wordpress/0', relation: 'x'.repeat(3000) }), 400, /"relation": Too big/);
    await expectRefused(user('remove-unit', { units: ['x'.repeat(3000)] }), 400, /"units.0": Too big/);
  });

  it('a relation-units cursor that this query did not make is refused', async () => {
    const invalid = 'invalid cursor: pass back the cursor of the previous page unchanged, or none to start from the first page';
    const page = (cursor: string) => agent('relation-units', { unit: 'wordpress/0', relation: relation.key, cursor });
    await expectRefused(page('garbage!'), 400, invalid);
    await expectRefused(page(Buffer.from('{"pk":1}').toString('base64url')), 400, invalid);
    await expectRefused(page(Buffer.from('[1,2]').toString('base64url')), 400, invalid);
    // A real key, of another partition: the relation's scope is the only place this cursor may point.
    const elsewhere = keyOf(store.model, { kind: 'application', name: 'mysql' });
    await expectRefused(page(Buffer.from(JSON.stringify(elsewhere)).toString('base64url')), 400, invalid);
  });
});

describe("items over DynamoDB's 400 KB", () => {
  it('a 500 KB relation value is refused naming the limit, and so is one that only grows past it', async () => {
    const big = { unit: 'wordpress/0', settings: [{ relationId: relation.id, changes: { a: 'x'.repeat(500_000) } }], ports: [] };
    await expectRefused(agent('commit-hook', big), 400, sizeRefusal);
    await expectRefused(
      agent('write-settings', { unit: 'wordpress/0', relationId: relation.id, changes: { a: 'x'.repeat(500_000) } }),
      400,
      sizeRefusal,
    );
    // Half the limit fits; twice half does not, and the refusal leaves the first half as it was.
    const half = 'x'.repeat(MAX_SETTINGS_BYTES / 2);
    const first = await api(await agent('write-settings', { unit: 'wordpress/0', relationId: relation.id, changes: { a: half } }));
    expect(first.statusCode).toBe(200);
    await expectRefused(agent('write-settings', { unit: 'wordpress/0', relationId: relation.id, changes: { b: half } }), 400, sizeRefusal);
    expect((await getSettings(store, relation.id, 'wordpress/0'))?.settings).toEqual({ 'private-address': '10.0.0.1', a: half });
  });

  it('a 500 KB config value is refused naming the limit', async () => {
    await expectRefused(user('config', { application: 'wordpress', set: { 'blog-title': 'x'.repeat(500_000) } }), 400, sizeRefusal);
    expect((await getApplication(store, 'wordpress'))?.config['blog-title']).toBe('My Title');
  });

  it('a charm with a 1 MB description is refused naming the limit, before its archive is stored', async () => {
    const metadata = `name: big\nseries: [jammy]\ndescription: ${'x'.repeat(1_000_000)}\n`;
    await expectRefused(user('deploy', { charm: { metadata } }), 400, sizeRefusal);
  });

  it("DynamoDB's own refusal of a too-large item is a 400 naming the limit, not a 500", async () => {
    // Beneath the checks above: whatever else grows an item past 400 KB meets this net.
    const oversized = { ...keyOf(store.model, { kind: 'application', name: 'huge' }), data: 'x'.repeat(500_000) };
    const refusal = await store.doc.send(new PutCommand({ TableName: store.table, Item: oversized })).catch((e: unknown) => e);
    expect(isItemTooLarge(refusal)).toBe(true);
    const before = await dumpTable(store);
    const error = await runOperation(store, 'cannot grow "huge"', async () => ({
      changes: [{ op: 'create', ref: { kind: 'application', name: 'huge' }, value: { name: 'huge', data: 'x'.repeat(500_000) } }],
      result: undefined,
    })).catch((e: unknown) => e);
    expect(isDroverError(error, 'invalid-argument')).toBe(true);
    expect(errorMessage(error)).toMatch(
      /^cannot grow "huge": the change would make a stored item larger than DynamoDB's 400 KB item limit/,
    );
    expect(await dumpTable(store)).toEqual(before);
  });
});

describe('bounded requests', () => {
  it(`refuses more than ${MAX_NAMES_PER_REQUEST} names in one request, whole`, async () => {
    const names = Array.from({ length: MAX_NAMES_PER_REQUEST + 1 }, (_, i) => `wordpress/${i}`);
    await expectRefused(
      user('remove-unit', { units: names }),
      400,
      `at most ${MAX_NAMES_PER_REQUEST} names in one request; split the list`,
    );
    await expectRefused(user('remove-machine', { machines: names }), 400, /at most 1000 names/);
    await expectRefused(user('remove-application', { applications: names }), 400, /at most 1000 names/);
    await expectRefused(user('retry-provisioning', { machines: names }), 400, /at most 1000 names/);
    // The bound is the maximum, not one less.
    expect(userOperations['remove-unit'].request.safeParse({ units: names.slice(0, MAX_NAMES_PER_REQUEST) }).success).toBe(true);
  });

  it("refuses a body over 5 MB (Lambda's payload is 6 MB, the event included) before parsing it: 413", async () => {
    const body = JSON.stringify({ units: ['wordpress/0'], padding: 'x'.repeat(MAX_REQUEST_BODY_BYTES) });
    await expectRefused(user('remove-unit', body), 413, /^the request body is \d+ bytes, more than the API takes \(5242880 bytes, 5 MB\)/);
  });

  it('the local API server stops reading a body over 5 MB: 413, and the handler never sees it', async () => {
    let calls = 0;
    const server = await startApiServer(async () => {
      calls++;
      return { statusCode: 200, body: '{}' };
    });
    try {
      const res = await fetch(`${server.url}/v1/deploy`, { method: 'POST', body: Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 'x') });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/more than the API takes/);
      const small = await fetch(`${server.url}/v1/deploy`, { method: 'POST', body: '{}' });
      expect(small.status).toBe(200);
      expect(calls).toBe(1);
    } finally {
      await server.close();
    }
  });
});
