// Agent presence against DynamoDB Local: the API records "last seen" on agent requests, at most
// once per write interval; status computes lost/down from it at read time (as Juju 2.9 does:
// https://github.com/juju/juju/blob/2.9/apiserver/common/unitstatus.go); and
// the presence items' stream records cost the stream consumers no work.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { createChangesHandler } from '../../functions/changes/handler.js';
import { recordMatches, STREAM_CONSUMERS } from '../../functions/stream-consumers.js';
import { createProvisionerHandler } from '../../functions/provisioner/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { refs } from '#shared/domain/plan.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { setMachineAgentStatus, setUnitStatus } from '#shared/state/operations/agent-status.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { recordPresence } from '#shared/state/operations/presence.js';
import { readPresence } from '#shared/state/queries/presence.js';
import { readStatus } from '#shared/state/queries/status.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { killAllAgents, localProvider, tempDataDir } from '../support/local-agents.js';
import { FaultyProvider, provisionerDeps, TestQueues } from '../support/provisioner.js';
import { useSqsServer } from '../support/sqs.js';
import { readItem, streamEvent, streamRecord } from '../support/stream.js';
import { freshStore } from '../support/table.js';
import { agentEvent, testAgentKeys } from '../support/agent-events.js';
import { silentLogger } from '../support/silent-logger.js';

const sqsServer = useSqsServer();
const START = Date.parse('2024-01-02T10:00:00.000Z');
let clock: number;
let store: Store;

beforeEach(async () => {
  clock = START;
  store = await freshStore({ now: () => new Date(clock) });
  await ensureModel(store);
});

/** Counts the requests a client sends from now on (an observer on the real client, not a stand-in). */
function countRequests(client: { middlewareStack: { add: (m: never, o: never) => void } }, counted: string[]) {
  client.middlewareStack.add(
    ((next: (a: unknown) => Promise<unknown>, context: { commandName: string }) => async (args: unknown) => {
      counted.push(context.commandName);
      return next(args);
    }) as never,
    { step: 'initialize' } as never,
  );
}

describe('recording presence', () => {
  it('writes "last seen" at most once per interval, whichever API container asks', async () => {
    expect(await recordPresence(store, '0', 60_000)).toBe(true);
    clock += 30_000;
    expect(await recordPresence(store, '0', 60_000)).toBe(false);
    expect(await readPresence(store, ['0'])).toEqual({ '0': new Date(START).toISOString() });
    clock += 31_000;
    expect(await recordPresence(store, '0', 60_000)).toBe(true);
    expect(await readPresence(store, ['0', '1'])).toEqual({ '0': new Date(clock).toISOString() });
  });

  it('the presence item expires by TTL a day after it was written, so a removed machine leaves none behind', async () => {
    await recordPresence(store, '0', 60_000);
    expect((await readItem(store, refs.presence('0')))?.expiresAt).toBe(Math.floor(START / 1000) + 24 * 3600);
  });

  describe('through the agent API', () => {
    let api: ReturnType<typeof createApiHandler>;
    beforeEach(async () => {
      await deploy(store, { charm: charms.mysql, numUnits: 1 });
      await setAgentCredentialHash(store, '0', hashAgentCredential('secret-0'), 0);
      const dir = await mkdtemp(join(tmpdir(), 'drover-presence-'));
      api = createApiHandler({
        store,
        charms: localCharmStore(join(dir, 'charms')),
        auth: { kind: 'token', token: 'token' },
        agents: { kind: 'machine-keys', keys: testAgentKeys },
        controller: 'test',
        agentLostAfterSeconds: 120,
        logger: silentLogger,
      });
    });
    const call = async (op: string, secret = 'secret-0') => api(await agentEvent('POST', `/v1/agent/${op}`, {}, { machine: '0', secret }));

    it('a heartbeat, or any other request with the credential, records the agent as seen', async () => {
      expect((await call('heartbeat')).statusCode).toBe(200);
      expect(await readPresence(store, ['0'])).toEqual({ '0': new Date(START).toISOString() });
      clock += 11_000;
      expect((await call('view')).statusCode).toBe(200);
      expect(await readPresence(store, ['0'])).toEqual({ '0': new Date(clock).toISOString() });
    });

    it('requests within the write interval (a twelfth of the threshold) write nothing', async () => {
      const sent: string[] = [];
      await call('heartbeat');
      countRequests(store.client, sent);
      clock += 9_000;
      await call('heartbeat');
      // The credential check's read, and no write.
      expect(sent).toEqual(['GetItemCommand']);
      expect(await readPresence(store, ['0'])).toEqual({ '0': new Date(START).toISOString() });
    });

    it("an agent's requests in flight at once write its presence once", async () => {
      const sent: string[] = [];
      countRequests(store.client, sent);
      const answers = await Promise.all([call('heartbeat'), call('view'), call('heartbeat')]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
      expect(sent.filter((c) => c !== 'GetItemCommand' && c !== 'BatchGetItemCommand')).toEqual(['PutItemCommand']);
      expect(await readPresence(store, ['0'])).toEqual({ '0': new Date(START).toISOString() });
    });

    it('a refused request records nothing: a wrong credential, or bad input with the right one', async () => {
      expect((await call('heartbeat', 'wrong')).statusCode).toBe(403);
      const bad = await api(await agentEvent('POST', '/v1/agent/heartbeat', { beat: 1 }, { machine: '0' }));
      expect(bad.statusCode).toBe(400);
      expect(await readPresence(store, ['0'])).toEqual({});
    });
  });
});

describe('status computes presence when it is read', () => {
  beforeEach(async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    for (const machine of ['0', '1']) await setMachineAgentStatus(store, machine, { current: 'started' });
    await setUnitStatus(store, 'mysql/0', { agent: { current: 'idle' }, workload: { current: 'active', message: 'ready' } });
    await setUnitStatus(store, 'mysql/1', {
      agent: { current: 'error', message: 'hook failed: "config-changed"' },
      workload: { current: 'active', message: 'ready' },
    });
    await recordPresence(store, '0', 0);
    await recordPresence(store, '1', 0);
  });
  const units = async (threshold: number) =>
    (await readStatus(store, { agentLostAfterSeconds: threshold })).applications.mysql as {
      units: Record<string, Record<string, unknown>>;
    };

  it('agents seen within the threshold are started and idle', async () => {
    clock += 60_000;
    const doc = await readStatus(store, { agentLostAfterSeconds: 120 });
    expect(doc.machines['0']).toMatchObject({ 'juju-status': { current: 'started' } });
    expect((await units(120)).units['mysql/0']).toMatchObject({
      'juju-status': { current: 'idle' },
      'workload-status': { current: 'active' },
    });
  });

  it('past the threshold the machine is down and its units lost, an error preserved; nothing stored changed', async () => {
    clock += 121_000;
    await recordPresence(store, '1', 0);
    const doc = await readStatus(store, { agentLostAfterSeconds: 120 });
    expect(doc.machines['0']).toMatchObject({ 'juju-status': { current: 'down', message: 'agent is not communicating with the server' } });
    expect(doc.machines['1']).toMatchObject({ 'juju-status': { current: 'started' } });
    const { units: shown } = await units(120);
    expect(shown['mysql/0']).toMatchObject({
      'juju-status': { current: 'lost', message: 'agent is not communicating with the server' },
      'workload-status': { current: 'unknown', message: "agent lost, see 'drover show-status-log mysql/0'" },
    });
    expect(shown['mysql/1']).toMatchObject({ 'juju-status': { current: 'idle' }, 'workload-status': { current: 'error' } });
    // Back as soon as it speaks again.
    await recordPresence(store, '0', 0);
    expect((await units(120)).units['mysql/0']).toMatchObject({
      'juju-status': { current: 'idle' },
      'workload-status': { current: 'active' },
    });
  });

  it('"workload error is preserved": a unit in error stays in error when its agent is lost', async () => {
    clock += 121_000;
    await recordPresence(store, '0', 0);
    const shown = (await units(120)).units['mysql/1'];
    expect(shown).toMatchObject({
      'juju-status': { current: 'lost' },
      'workload-status': { current: 'error', message: 'hook failed: "config-changed"' },
    });
  });
});

describe('presence writes wake no stream consumer', () => {
  let dataDir: string;
  afterEach(async () => {
    await killAllAgents(dataDir);
  });

  it('no consumer is given presence records, and given them anyway, none reads, writes, starts or sends', async () => {
    dataDir = tempDataDir();
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    // Written, written again, expired: the three records a machine's presence ever sends.
    await recordPresence(store, '0', 0);
    const oldItem = (await readItem(store, refs.presence('0')))!;
    clock += 60_000;
    await recordPresence(store, '0', 0);
    const newItem = (await readItem(store, refs.presence('0')))!;
    const event = streamEvent([streamRecord({ newItem: oldItem }), streamRecord({ oldItem, newItem }), streamRecord({ oldItem: newItem })]);

    // Filtered out on the way (Lambda's event filtering; the local poller's filter)...
    for (const consumer of STREAM_CONSUMERS) expect(event.Records.filter((r) => recordMatches(consumer.filter, r))).toEqual([]);
    // ...and harmless if they came: a filter is a saving, not a guard.
    const storeCalls: string[] = [];
    const sqsCalls: string[] = [];
    const sqs = sqsServer.client();
    const provider = new FaultyProvider(localProvider(dataDir));
    const handlers = {
      provisioner: createProvisionerHandler(provisionerDeps(store, provider, new TestQueues(sqsServer.client()))),
      changes: createChangesHandler({ store, sqs, controllerId: 'presence-test', logger: silentLogger }),
    };
    countRequests(store.client, storeCalls);
    countRequests(sqs, sqsCalls);
    for (const handler of Object.values(handlers)) expect(await handler(event)).toEqual({ batchItemFailures: [] });
    expect(storeCalls).toEqual([]);
    expect(sqsCalls).toEqual([]);
    expect(provider.startCalls).toBe(0);
    // The observers do see requests: the silence above is the handlers'.
    await readPresence(store, ['0']);
    expect(storeCalls).not.toEqual([]);
  });
});
