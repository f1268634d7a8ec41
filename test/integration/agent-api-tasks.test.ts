// The agent API's task routes (start-task, log-task, finish-task): an agent reaches only the
// tasks of units on its own machine, and every step is safe to retry.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { parseActions } from '#shared/domain/actions.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { cancelTask, enqueueOperation } from '#shared/state/operations/action-tasks.js';
import { getTask } from '#shared/state/queries/action-tasks.js';
import { getUnit } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { agentEvent, testAgentKeys } from '../support/agent-events.js';
import { silentLogger } from '../support/silent-logger.js';

let store: Store;
let api: ReturnType<typeof createApiHandler>;
let task: string;

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
  });
  const charm = { ...charms.mysql, actions: parseActions('mysql', 'backup: {}\n') };
  await deploy(store, { charm, numUnits: 2 });
  for (const m of ['0', '1']) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
  const queued = await enqueueOperation(store, { action: 'backup', units: ['mysql/1'], parameters: {} });
  task = queued.tasks[0]!.id;
});

const agent = (machine: string) => async (op: string, body: unknown) => {
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body, { machine }));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) };
};

describe('task routes', () => {
  it("refuse another machine's unit, and a task of another unit, changing nothing", async () => {
    const other = agent('0');
    expect(await other('start-task', { unit: 'mysql/1', task })).toMatchObject({ status: 403 });
    expect(await other('start-task', { unit: 'mysql/0', task })).toMatchObject({
      status: 403,
      body: { error: { message: `permission denied: task ${task} is not on this agent's machine` } },
    });
    expect(await other('finish-task', { unit: 'mysql/0', task, status: 'completed', results: {} })).toMatchObject({ status: 403 });
    expect((await getTask(store, task))?.status).toBe('pending');
  });

  it('start, log and finish, each safe to retry; the unit no longer has it pending', async () => {
    const own = agent('1');
    expect((await getUnit(store, 'mysql/1'))?.pendingTasks).toEqual([task]);
    const started = await own('start-task', { unit: 'mysql/1', task });
    expect(started).toMatchObject({ status: 200, body: { status: 'running', action: 'backup' } });
    // A retried start (the agent died before it saw the answer) answers the same task, still running.
    expect((await own('start-task', { unit: 'mysql/1', task })).body.status).toBe('running');
    expect((await own('log-task', { unit: 'mysql/1', task, message: 'one' })).status).toBe(200);
    expect((await own('log-task', { unit: 'mysql/1', task, message: 'two' })).status).toBe(200);
    const outcome = { unit: 'mysql/1', task, status: 'completed', results: { done: 'yes' } };
    expect((await own('finish-task', outcome)).body).toMatchObject({ status: 'completed', results: { done: 'yes' } });
    // A retried finish changes nothing, even with another outcome.
    expect((await own('finish-task', { ...outcome, status: 'failed', message: 'late' })).body.status).toBe('completed');
    expect(await getTask(store, task)).toMatchObject({ status: 'completed', log: [{ message: 'one' }, { message: 'two' }] });
    expect((await getUnit(store, 'mysql/1'))?.pendingTasks).toEqual([]);
    // Finished: no more log lines, and not started again.
    expect((await own('log-task', { unit: 'mysql/1', task, message: 'three' })).status).toBeGreaterThanOrEqual(400);
    expect((await own('start-task', { unit: 'mysql/1', task })).body.status).toBe('completed');
  });

  it('cancel-task: a pending task is never started; a running one is refused; a finished one is left alone', async () => {
    const own = agent('1');
    expect(await cancelTask(store, task)).toMatchObject({ status: 'cancelled' });
    expect((await getUnit(store, 'mysql/1'))?.pendingTasks).toEqual([]);
    expect((await own('start-task', { unit: 'mysql/1', task })).body.status).toBe('cancelled');
    expect((await cancelTask(store, task)).status).toBe('cancelled');

    const next = (await enqueueOperation(store, { action: 'backup', units: ['mysql/1'], parameters: {} })).tasks[0]!.id;
    await own('start-task', { unit: 'mysql/1', task: next });
    await expect(cancelTask(store, next)).rejects.toThrow(`task ${next} is running; drover cannot abort a running task`);
    await own('finish-task', { unit: 'mysql/1', task: next, status: 'completed', results: {} });
    expect((await cancelTask(store, next)).status).toBe('completed');
  });

  it('a queued task whose item is gone (expired) leaves the queue instead of being asked for forever', async () => {
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { keyOf } = await import('#shared/state/engine/keys.js');
    await store.doc.send(new DeleteCommand({ TableName: store.table, Key: keyOf(store.model, { kind: 'task', id: task }) }));
    expect((await agent('1')('start-task', { unit: 'mysql/1', task })).body).toMatchObject({ status: 'cancelled' });
    expect((await getUnit(store, 'mysql/1'))?.pendingTasks).toEqual([]);
  });
});
