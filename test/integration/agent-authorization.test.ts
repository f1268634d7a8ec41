// Every agent route, from the route table itself, called by machine 0's agent with another
// machine's unit, a relation its unit is not in, and another unit's task: all 403 and nothing
// changed. A route added to the table is covered here at once: it needs a sample request below
// (the type demands one for every operation) and a declaration of what it touches
// (functions/api/agent-authorization.ts). Before this test, removing the ownership check from
// unit-dead or leave-scope failed no test.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { declaredKinds } from '../../functions/api/agent-authorization.js';
import { agentRoutes } from '../../functions/api/agent-routes.js';
import { createApiHandler } from '../../functions/api/handler.js';
import { agentOperations, type AgentOperation, type AgentRequestOf } from '#shared/api/agent-requests.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { EXEC_ACTION } from '#shared/domain/operations.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { addOffer, consumeOffer } from '#shared/state/operations/offers.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { addSecret, grantSecret } from '#shared/state/operations/secrets.js';
import { secretForUnit } from '#shared/state/queries/secrets.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { enqueueOperation } from '#shared/state/operations/action-tasks.js';
import { getRelation, getUnit } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { agentEvent, testAgentKeys } from '../support/agent-events.js';
import { silentLogger } from '../support/silent-logger.js';

/** What a request names: the caller's own, or, one at a time, another machine's. */
interface Names {
  unit: string;
  relationKey: string;
  relationId: number;
  task: string;
  /** A charm archive, by sha256. */
  charm: string;
  /** A secret's URI: the unit's application's own, or another application's it was never granted. */
  secret: string;
}

const line = { time: '2024-05-01T10:11:12.000Z', level: 'INFO' as const, module: 'unit.test', message: 'hello' };

/** One valid request per agent operation, naming `n`'s entities wherever the request names any. */
const samples: { [O in AgentOperation]: (n: Names) => AgentRequestOf<O> } = {
  view: () => ({}),
  'set-unit-status': (n) => ({ unit: n.unit, workload: { current: 'active', message: 'hi' } }),
  report: (n) => ({
    unit: n.unit,
    id: 'report-0001',
    statuses: [{ kind: 'agent', status: { current: 'executing', message: 'running install hook' }, at: line.time }],
    charmUrl: 'local:wordpress-1',
    lines: [line],
  }),
  'set-machine-status': () => ({ status: { current: 'started' } }),
  'enter-scope': (n) => ({ unit: n.unit, relation: n.relationKey, settings: { 'private-address': '10.0.0.9' } }),
  'leave-scope': (n) => ({ unit: n.unit, relation: n.relationKey }),
  'read-settings': (n) => ({ unit: n.unit, relationId: n.relationId, of: n.unit }),
  'write-settings': (n) => ({ unit: n.unit, relationId: n.relationId, changes: { a: 'b' } }),
  'destroy-unit': (n) => ({ unit: n.unit }),
  'subordinate-dying': (n) => ({ unit: n.unit }),
  'unit-dead': (n) => ({ unit: n.unit }),
  'remove-unit': (n) => ({ unit: n.unit }),
  'clear-resolved': (n) => ({ unit: n.unit }),
  'charm-url': (n) => ({ unit: n.unit, charm: n.charm }),
  'resource-url': (n) => ({ unit: n.unit, resource: 'test-file' }),
  'set-unit-charm': (n) => ({ unit: n.unit, charmUrl: 'local:wordpress-1' }),
  'machine-dead': () => ({}),
  heartbeat: () => ({}),
  'relation-units': (n) => ({ unit: n.unit, relation: n.relationKey }),
  'claim-leadership': (n) => ({ unit: n.unit }),
  'leader-settings': (n) => ({ unit: n.unit }),
  'read-app-settings': (n) => ({ unit: n.unit, relationId: n.relationId, application: 'mysql' }),
  'set-application-status': (n) => ({ unit: n.unit, status: { current: 'active' } }),
  'application-status': (n) => ({ unit: n.unit }),
  'release-leadership': (n) => ({ unit: n.unit }),
  'set-unit-ports': (n) => ({ unit: n.unit, changes: [{ action: 'open', range: '8080' }] }),
  'commit-hook': (n) => ({
    unit: n.unit,
    settings: [{ relationId: n.relationId, changes: { a: 'b' } }],
    ports: [{ action: 'open', range: '8081' }],
    charmState: { k: 'v' },
    appSettings: [{ relationId: n.relationId, changes: { c: 'd' } }],
  }),
  'start-task': (n) => ({ unit: n.unit, task: n.task }),
  'log-task': (n) => ({ unit: n.unit, task: n.task, message: 'progress' }),
  'finish-task': (n) => ({ unit: n.unit, task: n.task, status: 'completed', results: {} }),
  'unit-state': (n) => ({ unit: n.unit }),
  'goal-state': (n) => ({ unit: n.unit }),
  'secret-add': (n) => ({ unit: n.unit, owner: 'application', content: { password: 'aHVudGVyMg==' }, label: 'fresh' }),
  'secret-get': (n) => ({ unit: n.unit, secret: n.secret }),
  'secret-set': (n) => ({ unit: n.unit, secret: n.secret, content: { password: 'bmV3' } }),
  'secret-remove': (n) => ({ unit: n.unit, secret: n.secret }),
  'secret-grant': (n) => ({ unit: n.unit, secret: n.secret, relationId: n.relationId }),
  'secret-revoke': (n) => ({ unit: n.unit, secret: n.secret, relationId: n.relationId }),
  'secret-ids': (n) => ({ unit: n.unit }),
  'secret-info-get': (n) => ({ unit: n.unit, secret: n.secret }),
  'secret-hook-state': (n) => ({ unit: n.unit }),
  'secret-new-uri': (n) => ({ unit: n.unit }),
  'secret-rotated': (n) => ({ unit: n.unit, secret: n.secret, rotateTime: '2025-01-01T00:00:00.000Z', originalRevision: 1 }),
  'secret-revision-seen': (n) => ({ unit: n.unit, secret: n.secret, revision: 1 }),
  log: (n) => ({ unit: n.unit, lines: [line] }),
  // An attachment is keyed by (storage, unit): naming another machine's unit names its attachment.
  'storage-attached': (n) => ({ unit: n.unit, storage: 'data/0', location: '/srv/data' }),
  'storage-detached': (n) => ({ unit: n.unit, storage: 'data/0' }),
  'storage-add': (n) => ({ unit: n.unit, name: 'data', count: 1 }),
};

const operations = Object.keys(agentRoutes) as AgentOperation[];
/** The archives wordpress and mysql were deployed with (only their hashes matter here). */
const WORDPRESS_ARCHIVE = 'a'.repeat(64);
const MYSQL_ARCHIVE = 'b'.repeat(64);

let store: Store;
let api: ReturnType<typeof createApiHandler>;
/** Machine 0's own entities, and the foreign ones: wordpress/1 is on machine 1, riak's peer relation has no wordpress. */
let own: Names;
let foreign: Names;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  const dir = await mkdtemp(join(tmpdir(), 'drover-authz-'));
  api = createApiHandler({
    store,
    charms: localCharmStore(join(dir, 'charms')),
    auth: { kind: 'token', token: 'user-token' },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
    logs: fileLogSink(join(dir, 'logs')),
  });
  await deploy(store, { charm: charms.wordpress, numUnits: 2, charmArchive: WORDPRESS_ARCHIVE });
  await deploy(store, { charm: charms.mysql, numUnits: 1, charmArchive: MYSQL_ARCHIVE });
  await deploy(store, { charm: charms.riak, numUnits: 1 });
  const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
  for (const unit of ['wordpress/0', 'wordpress/1', 'mysql/0']) await enterScope(store, unit, key, { 'private-address': unit });
  await enterScope(store, 'riak/0', 'riak:ring', {});
  const ring = await getRelation(store, 'riak:ring');
  const queued = await enqueueOperation(store, {
    action: EXEC_ACTION,
    units: ['wordpress/0', 'wordpress/1'],
    parameters: { command: 'true', timeout: 300 },
  });
  const taskOf = (unit: string) => queued.tasks.find((t) => t.unit === unit)!.id;
  const content = { password: 'aHVudGVyMg==' };
  const ownSecret = await addSecret(store, { owner: { kind: 'application', name: 'wordpress' }, content });
  // riak's secret, granted to mysql: wordpress's units may not see it, whatever they name.
  const foreignSecret = await addSecret(store, { owner: { kind: 'unit', name: 'riak/0' }, content });
  const { secret: granted } = await secretForUnit(store, 'riak/0', foreignSecret.uri, 'manage');
  await grantSecret(store, granted, [{ target: 'application-mysql', scope: 'model', role: 'view' }]);
  own = {
    unit: 'wordpress/0',
    relationKey: key,
    relationId: id,
    task: taskOf('wordpress/0'),
    charm: WORDPRESS_ARCHIVE,
    secret: ownSecret.uri,
  };
  foreign = {
    unit: 'wordpress/1',
    relationKey: ring!.key,
    relationId: ring!.id,
    task: taskOf('wordpress/1'),
    charm: MYSQL_ARCHIVE,
    secret: foreignSecret.uri,
  };
  expect((await getUnit(store, own.unit))?.machine).toBe('0');
  expect((await getUnit(store, foreign.unit))?.machine).not.toBe('0');
  await setAgentCredentialHash(store, '0', hashAgentCredential('secret-0'), 0);
  // wordpress/0 leads, so the leader's routes answer it as they answer their rightful caller.
  expect(await claimLeadership(store, own.unit, 60_000)).toMatchObject({ leader: true });
});

async function asMachine0(op: string, body: unknown) {
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body, { machine: '0' }));
  return { status: res.statusCode ?? 0, body: JSON.parse(String(res.body)) as { error?: { code: string; message: string } } };
}

/** Every key anywhere in a request, to see what kinds of entity it names. */
function keysOf(value: unknown): Set<string> {
  const keys = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, inner] of Object.entries(v)) {
        keys.add(k);
        walk(inner);
      }
  };
  walk(value);
  return keys;
}

describe('the agent route table', () => {
  it('has a route for every agent request schema, and nothing else', () => {
    expect(operations.sort()).toEqual(Object.keys(agentOperations).sort());
  });

  it.each(operations)('%s declares everything its request names', (op) => {
    const kinds = declaredKinds(agentRoutes[op].touches as never);
    expect(kinds.length).toBeGreaterThan(0);
    const keys = keysOf(samples[op](own));
    // Every sample is a valid request: the check below reads the real request shape.
    expect(agentOperations[op].request.safeParse(samples[op](own)).success).toBe(true);
    expect(kinds.includes('unit')).toBe(keys.has('unit'));
    expect(kinds.includes('relations')).toBe(keys.has('relation') || keys.has('relationId'));
    expect(kinds.includes('task')).toBe(keys.has('task'));
    expect(kinds.includes('charm')).toBe(keys.has('charm'));
    expect(kinds.includes('secret')).toBe(keys.has('secret'));
    // A route that declares no unit acts on the caller's machine alone.
    if (!keys.has('unit')) expect(kinds).toEqual(['machine']);
  });
});

describe("machine 0's agent is refused everything of another machine's, and nothing changes", () => {
  it.each(operations)('%s', async (op) => {
    const kinds = declaredKinds(agentRoutes[op].touches as never);
    const attempts: { what: string; body: unknown; status: number }[] = [];
    if (kinds.includes('unit'))
      attempts.push({ what: "another machine's unit", body: samples[op]({ ...own, unit: foreign.unit }), status: 403 });
    if (kinds.includes('relations'))
      attempts.push({
        what: 'a relation its unit is not in',
        body: samples[op]({ ...own, relationKey: foreign.relationKey, relationId: foreign.relationId }),
        status: 403,
      });
    if (kinds.includes('task'))
      attempts.push({ what: "another unit's task", body: samples[op]({ ...own, task: foreign.task }), status: 403 });
    if (kinds.includes('charm'))
      attempts.push({ what: "another application's charm", body: samples[op]({ ...own, charm: foreign.charm }), status: 403 });
    if (kinds.includes('secret'))
      attempts.push({
        what: "another application's secret, never granted",
        body: samples[op]({ ...own, secret: foreign.secret }),
        status: 403,
      });
    // A route of the caller's machine alone takes no machine: naming another is a bad request.
    if (kinds.includes('machine')) attempts.push({ what: 'another machine', body: { ...samples[op](own), machine: '1' }, status: 400 });
    expect(attempts.length).toBeGreaterThan(0);
    for (const attempt of attempts) {
      const before = await dumpTable(store);
      const res = await asMachine0(op, attempt.body);
      expect({ what: attempt.what, status: res.status }).toEqual({ what: attempt.what, status: attempt.status });
      if (attempt.status === 403) expect(res.body.error?.message).toMatch(/^permission denied(: .* is not on this agent's machine)?$/);
      expect(await dumpTable(store)).toEqual(before);
    }
  });
});

describe("machine 0's agent is not refused its own", () => {
  it.each(operations)('%s', async (op) => {
    const res = await asMachine0(op, samples[op](own));
    // Some answers are refusals of state (remove-unit of an Alive unit is 409), never of permission.
    expect(res.status, JSON.stringify(res.body)).not.toBe(403);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  });
});

describe('a unit of a third model and a relation across two others', () => {
  it("machine 0's agent of `default` reads and changes nothing of it, by either model's key", async () => {
    // `offering` offers mysql, `consuming` relates its wordpress to it: two records, neither in `default`.
    await addModel(store, { name: 'offering' });
    await addModel(store, { name: 'consuming' });
    const [offering, consuming] = [await storeOfModel(store, 'offering'), await storeOfModel(store, 'consuming')];
    await deploy(offering, { charm: charms.mysql, numUnits: 1 });
    await deploy(consuming, { charm: charms.wordpress, numUnits: 1 });
    await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' });
    await consumeOffer(consuming, { offerModel: 'offering', offer: 'db', alias: 'dbalias' });
    const { key } = await addRelation(consuming, ['wordpress', 'dbalias']);
    const theirs = (await getRelation(consuming, key))!.crossModel!;
    await enterScope(consuming, 'wordpress/0', key, { secret: 'consumer' });
    await enterScope(offering, 'mysql/0', theirs.relation, { secret: 'offerer' });
    // Its first call records the agent's presence: made before the table is compared.
    await asMachine0('view', {});
    for (const relationKey of [key, theirs.relation]) {
      const before = await dumpTable(store);
      const units = await asMachine0('relation-units', { unit: own.unit, relation: relationKey });
      expect(units).toEqual({ status: 200, body: { members: [] } });
      for (const op of ['enter-scope', 'leave-scope'] as const) {
        const res = await asMachine0(op, samples[op]({ ...own, relationKey }));
        expect(JSON.stringify(res.body)).not.toMatch(/secret|consumer|offerer/);
      }
      expect(await dumpTable(store)).toEqual(before);
    }
    // Its own relation names no unit of theirs: the other models' units are not its relation's.
    const read = await asMachine0('read-settings', { unit: own.unit, relationId: own.relationId, of: 'dbalias/0' });
    expect(read.status).toBe(404);
  });
});
