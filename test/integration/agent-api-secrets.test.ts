// Charm secrets through the agent API against DynamoDB Local, as an owner and a consumer use
// them through ops's Secret API: the owner's leader adds an application secret and grants it
// over a relation; the consumer reads it and tracks that revision until it refreshes; the
// owner's other units read the latest but may not change it; a revoked grant, or none, is
// "permission denied" in every route; no answer or error but secret-get's carries the content.
import { beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getUnit } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { agentEvent } from '../support/agent-events.js';
import { testApiHandler } from '../support/api-handler.js';

let store: Store;
let api: ReturnType<typeof createApiHandler>;
let relationId: number;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const FIRST = 'first-pa55word';
const SECOND = 'second-pa55word';

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  api = await testApiHandler(store);
  await deploy(store, { charm: charms.mysql, numUnits: 2 });
  await deploy(store, { charm: charms.wordpress, numUnits: 1 });
  ({ id: relationId } = await addRelation(store, ['wordpress', 'mysql']));
  for (const m of ['0', '1', '2']) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
  expect(await claimLeadership(store, 'mysql/0', 60_000)).toMatchObject({ leader: true });
});

/** A unit's call, from its own machine's agent. */
async function as(unit: string, op: string, body: Record<string, unknown> = {}) {
  const machine = (await getUnit(store, unit))!.machine!;
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, { unit, ...body }, { machine }));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) as Record<string, unknown> };
}
const denied = { status: 403, body: { error: { code: 'unauthorized', message: 'permission denied' } } };

describe('charm secrets', () => {
  it('the owner grants over a relation; the consumer tracks its revision until it refreshes; a revoked grant is denied', async () => {
    const added = await as('mysql/0', 'secret-add', { owner: 'application', content: { password: b64(FIRST) }, label: 'db-creds' });
    expect(added.status).toBe(200);
    const uri = added.body.uri as string;
    expect(await as('wordpress/0', 'secret-get', { secret: uri })).toEqual(denied);

    expect((await as('mysql/0', 'secret-grant', { secret: uri, relationId })).status).toBe(200);
    const read = (body: Record<string, unknown>) => as('wordpress/0', 'secret-get', body).then((r) => r.body.content);
    expect(await read({ secret: uri, label: 'from-db' })).toEqual({ password: b64(FIRST) });

    // ops's set_content: a new revision; the consumer stays on the one it read until --refresh.
    expect((await as('mysql/0', 'secret-set', { secret: 'db-creds', content: { password: b64(SECOND) } })).body).toEqual({ revision: 2 });
    expect(await read({ secret: 'from-db' })).toEqual({ password: b64(FIRST) });
    expect(await read({ secret: uri, peek: true })).toEqual({ password: b64(SECOND) });
    expect(await read({ secret: 'from-db' })).toEqual({ password: b64(FIRST) });
    expect(await read({ secret: 'from-db', refresh: true })).toEqual({ password: b64(SECOND) });
    expect(await read({ secret: uri })).toEqual({ password: b64(SECOND) });

    // A consumer views; it changes nothing.
    for (const [op, body] of [
      ['secret-set', { secret: uri, content: { password: b64('x') } }],
      ['secret-remove', { secret: uri }],
      ['secret-info-get', { secret: uri }],
      ['secret-grant', { secret: uri, relationId }],
    ] as const)
      expect(await as('wordpress/0', op, body), op).toEqual(denied);

    expect((await as('mysql/0', 'secret-revoke', { secret: uri, relationId })).status).toBe(200);
    expect(await as('wordpress/0', 'secret-get', { secret: uri })).toEqual(denied);
    expect(await as('wordpress/0', 'secret-get', { secret: 'from-db' })).toEqual(denied);
  });

  it('a grant goes with its relation: removed, the consumer is denied, and a relation added again grants nothing', async () => {
    const { uri } = (await as('mysql/0', 'secret-add', { owner: 'application', content: { password: b64(FIRST) } })).body as {
      uri: string;
    };
    expect((await as('mysql/0', 'secret-grant', { secret: uri, relationId })).status).toBe(200);
    expect((await as('wordpress/0', 'secret-get', { secret: uri })).status).toBe(200);
    expect(await destroyRelation(store, relationId)).toMatchObject({ outcome: 'removed' });
    expect(await as('wordpress/0', 'secret-get', { secret: uri })).toEqual(denied);
    await addRelation(store, ['wordpress', 'mysql']);
    expect(await as('wordpress/0', 'secret-get', { secret: uri })).toEqual(denied);
  });

  it("the owner's other units read the application's secrets but change them only as leader", async () => {
    const { uri } = (await as('mysql/0', 'secret-add', { owner: 'application', content: { password: b64(FIRST) }, label: 'db-creds' }))
      .body as { uri: string };
    expect((await as('mysql/1', 'secret-get', { secret: 'db-creds' })).body).toEqual({ content: { password: b64(FIRST) } });
    expect(await as('mysql/1', 'secret-set', { secret: uri, content: { password: b64(SECOND) } })).toEqual(denied);
    expect(await as('mysql/1', 'secret-add', { owner: 'application', content: { password: b64(SECOND) } })).toEqual({
      status: 403,
      body: { error: { code: 'unauthorized', message: 'this unit is not the leader' } },
    });
    const own = (await as('mysql/1', 'secret-add', { owner: 'unit', content: { token: b64(SECOND) } })).body.uri as string;
    expect((await as('mysql/0', 'secret-ids')).body).toEqual({ ids: [uri] });
    expect((await as('mysql/1', 'secret-ids')).body).toEqual({ ids: [own] });
    // A unit's own secret is its alone, even to its leader.
    expect(await as('mysql/0', 'secret-get', { secret: own })).toEqual(denied);
    const id = uri.slice('secret:'.length);
    expect((await as('mysql/0', 'secret-info-get', { secret: uri })).body).toEqual({
      [id]: { revision: 1, label: 'db-creds', owner: 'application', rotation: 'never' },
    });
  });

  it("refuses in Juju's words, and no error carries the content", async () => {
    const { uri } = (await as('mysql/0', 'secret-add', { owner: 'unit', content: { password: b64(FIRST) }, label: 'mine' })).body as {
      uri: string;
    };
    const answers = [
      await as('mysql/0', 'secret-add', { owner: 'unit', content: { password: b64(SECOND) }, label: 'mine' }),
      await as('mysql/0', 'secret-add', { owner: 'unit', content: { Password: b64(SECOND) } }),
      await as('mysql/0', 'secret-get', { secret: 'secret:cu5ff0d8kgbs73a1opb0' }),
      await as('mysql/0', 'secret-remove', { secret: uri, revision: 9 }),
      await as('wordpress/0', 'secret-get', { secret: uri }),
    ];
    expect(answers.map((a) => [a.status, (a.body.error as { message: string }).message])).toEqual([
      [409, 'secret with label "mine" already exists'],
      [400, 'key "Password" not valid'],
      [404, 'secret "secret:cu5ff0d8kgbs73a1opb0" not found'],
      [404, `secret revision ${uri}/9 not found`],
      [403, 'permission denied'],
    ]);
    const text = JSON.stringify(answers);
    for (const value of [FIRST, SECOND, b64(FIRST), b64(SECOND)]) expect(text).not.toContain(value);
    // Removed, it is gone for its owner too.
    expect((await as('mysql/0', 'secret-remove', { secret: uri })).status).toBe(200);
    expect((await as('mysql/0', 'secret-get', { secret: uri })).status).toBe(404);
  });
});
