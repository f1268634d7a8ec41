// A hook's secret changes apply when the hook succeeds, as Juju commits them with the hook
// (agent/uniter/pending-secrets.ts): the hook context of a real unit, its tools run as a hook runs
// them, against the agent API on DynamoDB Local. secret-add prints its URI at once, but the secret
// exists only once the hook's changes are flushed; a failing hook (never flushed) changes no
// secret; a change the unit may not make is refused when the tool runs, and nothing is held.
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentApi } from '../../agent/api-client.js';
import { runTool } from '../../agent/hook-tools/commands/index.js';
import { HookContext } from '../../agent/uniter/hook-context.js';
import type { HookContextInit } from '../../agent/uniter/hook-context-init.js';
import type { createApiHandler } from '../../functions/api/handler.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getUnit } from '#shared/state/engine/reads.js';
import { getSecret, listSecrets } from '#shared/state/queries/secrets.js';
import { parseSecretUri } from '#shared/domain/secrets.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { agentEvent } from '../support/agent-events.js';
import { testApiHandler } from '../support/api-handler.js';

let store: Store;
let api: ReturnType<typeof createApiHandler>;
const calls: string[] = [];

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  api = await testApiHandler(store);
  await deploy(store, { charm: charms.mysql, numUnits: 1 });
  await deploy(store, { charm: charms.wordpress, numUnits: 1 });
  await addRelation(store, ['wordpress', 'mysql']);
  for (const m of ['0', '1']) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
  expect(await claimLeadership(store, 'mysql/0', 60_000)).toMatchObject({ leader: true });
  calls.length = 0;
});

/** The agent API as the unit's machine agent reaches it. */
async function agentApi(unit: string): Promise<AgentApi> {
  const machine = (await getUnit(store, unit))!.machine!;
  return {
    url: 'http://test',
    async call<T>(op: string, body: unknown): Promise<T> {
      calls.push(op);
      const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body as Record<string, unknown>, { machine }));
      const answer = JSON.parse(String(res.body)) as { error?: { message: string } };
      if (res.statusCode !== 200) throw Object.assign(new Error(answer.error?.message ?? 'failed'), { refused: true });
      return answer as T;
    },
  };
}

async function hookOf(unit: string): Promise<HookContext> {
  const init = {
    id: `${unit}-config-changed-1`,
    unitName: unit,
    modelUuid: '',
    openPorts: [],
    relations: [],
    workload: { status: 'unknown', message: '' },
    api: await agentApi(unit),
    leadership: { tracker: { isLeader: async () => unit === 'mysql/0' } },
  } as unknown as HookContextInit;
  return new HookContext(init);
}

const tool = (ctx: HookContext, name: string, ...args: string[]) => runTool(ctx, name, args, { cwd: '/' });

describe("a hook's secret changes", () => {
  it('secret-add prints the URI at once; the secret exists once the hook commits; the hook reads what it set', async () => {
    const hook = await hookOf('mysql/0');
    const added = await tool(hook, 'secret-add', '--label', 'creds', '--owner', 'application', 'password=first-pa55');
    expect(added).toMatchObject({ code: 0, stdout: expect.stringMatching(/^secret:[0-9a-v]{20}\n$/) });
    const uri = added.stdout.trim();
    expect(await listSecrets(store)).toEqual([]);
    // Later calls in the same hook name it, by URI or label, before it is in state.
    expect((await tool(hook, 'secret-get', uri)).stdout).toBe('password: first-pa55\n');
    expect((await tool(hook, 'secret-set', uri, 'password=second-pa55')).code).toBe(0);
    expect((await tool(hook, 'secret-get', '--label', 'creds')).stdout).toBe('password: second-pa55\n');
    expect(await listSecrets(store)).toEqual([]);

    await hook.flush();
    expect(await getSecret(store, parseSecretUri(uri)!)).toMatchObject({ label: 'creds', latestRevision: 2 });
  });

  it('a failing hook, never flushed, changes no secret', async () => {
    const first = await hookOf('mysql/0');
    const uri = (await tool(first, 'secret-add', '--label', 'creds', 'password=first-pa55')).stdout.trim();
    await first.flush();

    const failing = await hookOf('mysql/0');
    expect((await tool(failing, 'secret-set', uri, 'password=second-pa55')).code).toBe(0);
    expect((await tool(failing, 'secret-add', '--label', 'other', 'password=x-pa55')).code).toBe(0);
    expect((await tool(failing, 'secret-remove', uri)).code).toBe(0);
    // The hook exits non-zero: run-hook.ts never flushes its context.
    expect((await listSecrets(store)).map((s) => [s.id, s.latestRevision])).toEqual([[parseSecretUri(uri), 1]]);
  });

  it('a change the unit may not make is refused when the tool runs, and nothing is held for the commit', async () => {
    const owner = await hookOf('mysql/0');
    const uri = (await tool(owner, 'secret-add', '--owner', 'application', 'password=first-pa55')).stdout.trim();
    await owner.flush();

    const other = await hookOf('wordpress/0');
    expect(await tool(other, 'secret-set', uri, 'password=stolen-pa55')).toMatchObject({ code: 1, stderr: 'ERROR permission denied\n' });
    // A minion adding an application secret: refused as Juju's tool refuses it.
    const minion = await hookOf('wordpress/0');
    expect(await tool(minion, 'secret-add', '--owner', 'application', 'password=x-pa55')).toMatchObject({
      code: 1,
      stderr: 'ERROR this unit is not the leader\n',
    });
    calls.length = 0;
    await other.flush();
    await minion.flush();
    expect(calls).toEqual([]);
    expect((await getSecret(store, parseSecretUri(uri)!))?.latestRevision).toBe(1);
  });
});
