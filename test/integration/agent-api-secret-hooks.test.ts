// What the unit agent asks about its secret hooks, through the agent API against DynamoDB Local:
// `secret-hook-state` tells the owner's leader its schedule and the revisions consumers track,
// and a consumer the revision it tracks and the latest, never any content; `secret-rotated` moves
// the schedule on as Juju's SecretRotated does, once however often it is retried;
// `secret-revision-seen` keeps the revision a consumer ran secret-changed for.
import { beforeEach, describe, expect, it } from 'vitest';
import type { createApiHandler } from '../../functions/api/handler.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getUnit } from '#shared/state/engine/reads.js';
import { getSecret } from '#shared/state/queries/secrets.js';
import { parseSecretUri } from '#shared/domain/secrets.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { agentEvent } from '../support/agent-events.js';
import { testApiHandler } from '../support/api-handler.js';

const HOUR = 3_600_000;
const START = Date.parse('2025-06-01T12:00:00.000Z');
let clock = START;
let store: Store;
let api: ReturnType<typeof createApiHandler>;
let relationId: number;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const FIRST = 'first-pa55word';
const SECOND = 'second-pa55word';

beforeEach(async () => {
  clock = START;
  store = await freshStore({ now: () => new Date(clock) });
  await ensureModel(store);
  api = await testApiHandler(store);
  await deploy(store, { charm: charms.mysql, numUnits: 1 });
  await deploy(store, { charm: charms.wordpress, numUnits: 1 });
  ({ id: relationId } = await addRelation(store, ['wordpress', 'mysql']));
  for (const m of ['0', '1']) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
  expect(await claimLeadership(store, 'mysql/0', 100 * HOUR)).toMatchObject({ leader: true });
});

async function as(unit: string, op: string, body: Record<string, unknown> = {}) {
  const machine = (await getUnit(store, unit))!.machine!;
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, { unit, ...body }, { machine }));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) as Record<string, unknown> };
}

/** The owner's hourly secret, granted to wordpress and read once by wordpress/0 (as `db`). */
async function grantedSecret(): Promise<string> {
  const added = await as('mysql/0', 'secret-add', {
    owner: 'application',
    content: { password: b64(FIRST) },
    label: 'creds',
    rotate: 'hourly',
  });
  const uri = added.body.uri as string;
  expect((await as('mysql/0', 'secret-grant', { secret: uri, relationId })).status).toBe(200);
  expect((await as('wordpress/0', 'secret-get', { secret: uri, label: 'db' })).status).toBe(200);
  return uri;
}

const at = (ms: number) => new Date(ms).toISOString();

describe('the secret hooks through the agent API', () => {
  it('tells the owner its schedule and tracked revisions, and the consumer its revisions, never the content', async () => {
    const uri = await grantedSecret();
    expect((await as('mysql/0', 'secret-set', { secret: uri, content: { password: b64(SECOND) } })).body).toEqual({ revision: 2 });

    const owner = await as('mysql/0', 'secret-hook-state');
    expect(owner.body).toEqual({
      owned: [
        {
          uri,
          label: 'creds',
          latestRevision: 2,
          nextRotateTime: at(START + HOUR),
          revisions: [{ revision: 1 }, { revision: 2 }],
          trackedRevisions: [1],
        },
      ],
      consumed: [],
    });
    const consumer = await as('wordpress/0', 'secret-hook-state');
    expect(consumer.body).toEqual({ owned: [], consumed: [{ uri, label: 'db', latestRevision: 2, trackedRevision: 1 }] });
    for (const answer of [owner, consumer]) {
      const text = JSON.stringify(answer.body);
      for (const content of [FIRST, SECOND, b64(FIRST), b64(SECOND)]) expect(text).not.toContain(content);
    }
  });

  it('secret-rotated moves the schedule on as Juju does, and a retry changes nothing more', async () => {
    const uri = await grantedSecret();
    const id = parseSecretUri(uri)!;
    const due = at(START + HOUR);
    clock = START + HOUR + 1000;

    // The charm made no new revision: again after Juju's retry delay, from the time it was due.
    const rotated = { secret: uri, rotateTime: due, originalRevision: 1 };
    expect((await as('mysql/0', 'secret-rotated', rotated)).status).toBe(200);
    expect((await getSecret(store, id))?.nextRotateTime).toBe(at(START + HOUR + 300_000));
    expect((await as('mysql/0', 'secret-rotated', rotated)).status).toBe(200);
    expect((await getSecret(store, id))?.nextRotateTime).toBe(at(START + HOUR + 300_000));

    // It did (a new revision during the hook): the policy's interval after the time it was due.
    await as('mysql/0', 'secret-set', { secret: uri, content: { password: b64(SECOND) } });
    const retried = { secret: uri, rotateTime: at(START + HOUR + 300_000), originalRevision: 1 };
    expect((await as('mysql/0', 'secret-rotated', retried)).status).toBe(200);
    expect((await getSecret(store, id))?.nextRotateTime).toBe(at(START + 2 * HOUR + 300_000));

    // Only its manager tells it: the consumer is refused, and nothing changes.
    expect((await as('wordpress/0', 'secret-rotated', { ...retried, rotateTime: at(START + 2 * HOUR + 300_000) })).status).toBe(403);
    expect((await getSecret(store, id))?.nextRotateTime).toBe(at(START + 2 * HOUR + 300_000));
  });

  it('secret-revision-seen keeps the revision the consumer ran secret-changed for; a lower one changes nothing', async () => {
    const uri = await grantedSecret();
    await as('mysql/0', 'secret-set', { secret: uri, content: { password: b64(SECOND) } });
    expect((await as('wordpress/0', 'secret-revision-seen', { secret: uri, revision: 2 })).status).toBe(200);
    expect((await as('wordpress/0', 'secret-revision-seen', { secret: uri, revision: 1 })).status).toBe(200);
    expect((await as('wordpress/0', 'secret-hook-state')).body).toEqual({
      owned: [],
      consumed: [{ uri, label: 'db', latestRevision: 2, trackedRevision: 1, seenRevision: 2 }],
    });
  });
});
