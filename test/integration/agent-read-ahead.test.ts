// An agent request's first read (functions/api/agent-read-ahead.ts): the caller's machine and what
// its route authorizes against (the unit it names; for a charm download, that unit's
// application) in one BatchGetItem, instead of one read after another; for a view, what the
// agent's last view showed. What is read ahead still decides nothing before the caller is
// identified and the route authorized, and a view is what the caller's machine holds.
import { beforeEach, describe, expect, it } from 'vitest';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { MAX_VIEW_READ_AHEAD } from '#shared/api/agent-requests.js';
import { getUnit } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { apiEvent } from '../support/api-events.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { testApiHandler } from '../support/api-handler.js';
import { agentEvent, signEvent } from '../support/agent-events.js';

const ARCHIVE = 'a'.repeat(64);
let store: Store;
let api: Awaited<ReturnType<typeof testApiHandler>>;
/** Every DynamoDB request the API sent while `counting`: its command and the kinds of the keys it read. */
let sent: { command: string; kinds: string[] }[] = [];
let counting = false;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  api = await testApiHandler(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 2, charmArchive: ARCHIVE });
  for (const m of ['0', '1']) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
  sent = [];
  counting = false;
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: Record<string, unknown>; RequestItems?: Record<string, { Keys?: Record<string, unknown>[] }> };
      const keys = input.Key ? [input.Key] : Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys ?? []);
      // The entity kind is the partition key's part after the model (shared/state/engine/keys.ts).
      const kinds = keys.map((k) => String(k.pk).split('#')[1]!.toLowerCase());
      // The model is read once per process and table, to know it exists (agent-identity.ts): not per request.
      if (counting && !(kinds.length === 1 && kinds[0] === 'model')) sent.push({ command: context.commandName ?? '', kinds });
      return next(args);
    },
    { step: 'initialize', name: 'readAheadTest' },
  );
});

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);

async function call(machine: string, op: string, body: unknown, base64 = false) {
  const plain = apiEvent('POST', `/v1/agent/${op}`, body);
  // The local API server hands bodies on base64-encoded (embedded/api-server.ts), API Gateway as text.
  const event = base64
    ? await signEvent({ ...plain, body: Buffer.from(plain.body ?? '').toString('base64'), isBase64Encoded: true }, { machine })
    : await agentEvent('POST', `/v1/agent/${op}`, body, { machine });
  counting = true;
  try {
    const res = await api(event);
    return { status: res.statusCode, body: JSON.parse(String(res.body)) as Record<string, unknown> };
  } finally {
    counting = false;
  }
}

/** The reads sent before the first write. */
const readsBeforeWrite = () => {
  const firstWrite = sent.findIndex((s) => !READS.has(s.command));
  return (firstWrite < 0 ? sent : sent.slice(0, firstWrite)).filter((s) => READS.has(s.command));
};

describe('an agent request reads what it is authorized by in one request', () => {
  it.each([false, true])('report: the machine and the unit in one BatchGetItem (body base64-encoded: %s)', async (base64) => {
    const status = { kind: 'workload', status: { current: 'active', message: 'ready' }, at: new Date().toISOString() };
    const res = await call('1', 'report', { unit: 'wordpress/1', id: `report-${base64}`, statuses: [status] }, base64);
    expect(res).toEqual({ status: 200, body: { applied: true } });
    const reads = readsBeforeWrite();
    expect(reads.map((r) => r.command)).toEqual(['BatchGetItemCommand']);
    expect(reads[0]!.kinds.sort()).toEqual(['machine', 'unit']);
    expect((await getUnit(store, 'wordpress/1'))?.workloadStatus?.current).toBe('active');
  });

  it("charm-url: the machine, the unit and the unit's application in one BatchGetItem", async () => {
    const res = await call('0', 'charm-url', { unit: 'wordpress/0', charm: ARCHIVE });
    expect(res.status).toBe(200);
    expect(sent.filter((s) => READS.has(s.command)).map((r) => [r.command, r.kinds.sort()])).toEqual([
      ['BatchGetItemCommand', ['app', 'machine', 'unit']],
    ]);
  });

  it("refuses another machine's unit as before, changing nothing, though that unit was read ahead", async () => {
    const before = await getUnit(store, 'wordpress/1');
    const status = { kind: 'workload', status: { current: 'blocked', message: 'not yours' }, at: new Date().toISOString() };
    const res = await call('0', 'report', { unit: 'wordpress/1', id: 'report-other', statuses: [status] });
    expect(res.status).toBe(403);
    expect((res.body.error as { message: string }).message).toBe('permission denied: unit "wordpress/1" is not on this agent\'s machine');
    expect(sent.some((s) => !READS.has(s.command))).toBe(false);
    expect(await getUnit(store, 'wordpress/1')).toEqual(before);
  });

  it('reads only the machine first when the body names no unit it can read ahead, and still answers as the schema says', async () => {
    const res = await call('0', 'report', { unit: 42, id: 'report-odd', statuses: [] });
    expect(res.status).toBe(400);
    expect((res.body.error as { message: string }).message).toMatch(/^invalid report request/);
    expect(sent.filter((s) => READS.has(s.command)).map((r) => [r.command, r.kinds])).toEqual([['GetItemCommand', ['machine']]]);
  });
});

describe('a view reads what the last view showed with the machine', () => {
  type View = { units: { name: string }[]; relations: { key: string }[]; applications: { name: string }[] };
  const known = (view: View) => ({ known: { units: view.units.map((u) => u.name), relations: view.relations.map((r) => r.key) } });
  const readsOf = () => sent.filter((s) => READS.has(s.command)).map((r) => [r.command, [...new Set(r.kinds)].sort()]);

  it('in one BatchGetItem when its machine still holds them, the same view as one read in two', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addRelation(store, ['wordpress', 'mysql']);
    const first = await call('0', 'view', {});
    expect(first.status).toBe(200);
    expect(readsOf()).toEqual([
      ['GetItemCommand', ['machine']],
      ['BatchGetItemCommand', ['app', 'leaderdata', 'lease', 'model', 'unit']],
      ['BatchGetItemCommand', ['rel']],
    ]);

    sent = [];
    const again = await call('0', 'view', known(first.body as unknown as View));
    // The same view; the charm's download URL is signed anew, to expire minutes from now.
    const withoutUrls = ({ body: { charmDownloads, ...view }, ...res }: Awaited<ReturnType<typeof call>>) => ({
      ...res,
      view,
      downloads: Object.keys(charmDownloads as object),
    });
    expect(withoutUrls(again)).toEqual(withoutUrls(first));
    expect(withoutUrls(first).downloads).toEqual([ARCHIVE]);
    expect(readsOf()).toEqual([['BatchGetItemCommand', ['app', 'leaderdata', 'lease', 'machine', 'model', 'rel', 'unit']]]);
  });

  it("shows only its own machine's units, whatever it names, and reads what it did not name", async () => {
    const res = await call('0', 'view', { known: { units: ['wordpress/1', 'wordpress/1'], relations: [] } });
    expect(res.status).toBe(200);
    expect((res.body as unknown as View).units.map((u) => u.name)).toEqual(['wordpress/0']);
    expect(readsOf()).toEqual([
      ['BatchGetItemCommand', ['app', 'leaderdata', 'lease', 'machine', 'model', 'unit']],
      ['BatchGetItemCommand', ['app', 'leaderdata', 'lease', 'model', 'unit']],
    ]);
  });

  it('shows the units as they are now, not as the agent last saw them', async () => {
    const first = (await call('1', 'view', {})).body as unknown as View;
    expect(first.units.map((u) => u.name)).toEqual(['wordpress/1']);
    await destroyUnit(store, 'wordpress/1'); // never started: removed at once
    const res = await call('1', 'view', known(first));
    expect(res.status).toBe(200);
    expect((res.body as unknown as View).units).toEqual([]);
  });

  it('refuses a view request that names too many units, as its schema says', async () => {
    const units = Array.from({ length: MAX_VIEW_READ_AHEAD + 1 }, (_, i) => `wordpress/${i}`);
    const res = await call('0', 'view', { known: { units, relations: [] } });
    expect(res.status).toBe(400);
    expect(readsOf()).toEqual([['GetItemCommand', ['machine']]]);
  });
});
