// The agent API's charm state (state-get/state-set/state-delete), workload version
// (application-version-set) and goal-state, against DynamoDB Local: written only with a
// successful hook's commit, all or nothing, read only by the unit's own machine, removed with
// the unit.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { commitHookChanges } from '#shared/state/operations/commit-hook.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyUnit, destroyUnitByAgent } from '#shared/state/operations/destroy-unit.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getUnit, getUnitState } from '#shared/state/engine/reads.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { readStatus } from '#shared/state/queries/status.js';
import type { Store } from '#shared/state/engine/store.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { agentEvent, testAgentKeys } from '../support/agent-events.js';
import { silentLogger } from '../support/silent-logger.js';

let store: Store;
let api: ReturnType<typeof createApiHandler>;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  const dir = await mkdtemp(join(tmpdir(), 'drover-api-'));
  api = createApiHandler({
    store,
    charms: localCharmStore(join(dir, 'charms')),
    auth: { kind: 'token', token: 'token' },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
    logs: fileLogSink(join(dir, 'logs')),
  });
});

const agent = (machine: string) => async (op: string, body: unknown) => {
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body, { machine }));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) };
};
async function credentials(...machines: string[]) {
  for (const m of machines) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
}
const commit = (unit: string, extra: Record<string, unknown>) => agent('0')('commit-hook', { unit, settings: [], ports: [], ...extra });

describe('charm state', () => {
  it('is written by commit-hook (a value sets, null deletes) and read back by unit-state', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await credentials('0');
    expect((await agent('0')('unit-state', { unit: 'wordpress/0' })).body).toEqual({ state: {} });
    expect((await commit('wordpress/0', { charmState: { token: 'abc', empty: '', gone: 'x' } })).status).toBe(200);
    expect((await commit('wordpress/0', { charmState: { gone: null, token: 'def' } })).status).toBe(200);
    expect((await agent('0')('unit-state', { unit: 'wordpress/0' })).body).toEqual({ state: { token: 'def', empty: '' } });
    expect((await getUnitState(store, 'wordpress/0'))?.version).toBe(2);
  });

  it('is not written when another part of the hook is refused', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.mysql, numUnits: 1, to: ['0'] });
    await credentials('0');
    expect((await agent('0')('set-unit-ports', { unit: 'mysql/0', changes: [{ action: 'open', range: '80' }] })).status).toBe(200);
    const res = await commit('wordpress/0', {
      ports: [{ action: 'open', range: '80' }],
      charmState: { token: 'abc' },
      workloadVersion: '1.0',
    });
    expect(res.status).toBe(409);
    expect(await getUnitState(store, 'wordpress/0')).toBeUndefined();
    expect((await getUnit(store, 'wordpress/0'))?.workloadVersion).toBeUndefined();
  });

  it("is refused for another machine's unit", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await credentials('0', '1');
    expect((await agent('1')('unit-state', { unit: 'wordpress/0' })).status).toBe(403);
    expect((await agent('1')('commit-hook', { unit: 'wordpress/0', settings: [], ports: [], charmState: { a: 'b' } })).status).toBe(403);
    expect(await getUnitState(store, 'wordpress/0')).toBeUndefined();
  });

  it('goes with the unit when it is removed, and cannot be written for a Dead unit', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await commitHookChanges(store, 'wordpress/0', { settings: [], ports: [], charmState: { token: 'abc' } });
    // A unit that ran a hook has a started agent: it goes Dying, Dead, then removed.
    await destroyUnitByAgent(store, 'wordpress/0');
    await ensureUnitDead(store, 'wordpress/0');
    await expect(commitHookChanges(store, 'wordpress/0', { settings: [], ports: [], charmState: { token: 'x' } })).rejects.toThrow(
      'unit "wordpress/0" not found',
    );
    await removeUnit(store, 'wordpress/0');
    expect(await getUnit(store, 'wordpress/0')).toBeUndefined();
    expect(await getUnitState(store, 'wordpress/0')).toBeUndefined();
  });
});

describe('workload version', () => {
  it("shows as the application's version in status: the one its units set last", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    expect((await readStatus(store)).applications.wordpress).not.toHaveProperty('version');
    await commitHookChanges(
      store,
      'wordpress/1',
      { settings: [], ports: [], workloadVersion: '5.7' },
      () => new Date('2026-01-01T00:00:00Z'),
    );
    await commitHookChanges(
      store,
      'wordpress/0',
      { settings: [], ports: [], workloadVersion: '5.8' },
      () => new Date('2026-01-01T00:00:01Z'),
    );
    expect((await readStatus(store)).applications.wordpress).toMatchObject({ version: '5.8' });
    expect(Object.keys((await readStatus(store)).applications.wordpress!).indexOf('version')).toBe(
      Object.keys((await readStatus(store)).applications.wordpress!).indexOf('units') + 1,
    );
  });
});

describe('goal-state', () => {
  it("lists the application's units and, per endpoint, the related application and its units", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    const { key } = await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', key, {});
    await enterScope(store, 'wordpress/1', key, {});
    await destroyUnit(store, 'wordpress/1');
    await credentials('0');
    const res = await agent('0')('goal-state', { unit: 'wordpress/0' });
    expect(res.status).toBe(200);
    const since = expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    expect(res.body).toEqual({
      units: { 'wordpress/0': { status: 'waiting', since }, 'wordpress/1': { status: 'dying', since } },
      relations: { db: { mysql: { status: 'joined', since }, 'mysql/0': { status: 'waiting', since } } },
    });
    expect((await agent('0')('goal-state', { unit: 'mysql/0' })).status).toBe(403);
  });
});
