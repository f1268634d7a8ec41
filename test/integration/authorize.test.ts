// authorize() itself (functions/api/agent-authorization.ts), one kind of thing at a time: what it
// hands the route for the caller's own unit, relations, task, charm and secret, and the exact
// refusal for each that is not the caller's. The route-table test (agent-authorization.test.ts)
// shows every route is refused; routes also check some things again themselves, so only this
// test shows that the refusal comes from authorize().
import { beforeEach, describe, expect, it } from 'vitest';
import { authorize, type Touches } from '../../functions/api/agent-authorization.js';
import { EXEC_ACTION } from '#shared/domain/operations.js';
import { secretUri } from '#shared/domain/secrets.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { enqueueOperation } from '#shared/state/operations/action-tasks.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { addSecret } from '#shared/state/operations/secrets.js';
import { getRelation } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

/** A request naming whatever the test puts in it; `touches` below reads its fields. */
interface Body {
  unit?: string;
  relations?: (string | number)[];
  task?: string;
  charm?: string;
  secret?: string;
}

const WORDPRESS_ARCHIVE = 'a'.repeat(64);
const MYSQL_ARCHIVE = 'b'.repeat(64);

const everything: Touches<Body> = {
  unit: (b) => b.unit,
  relations: (b) => b.relations ?? [],
  task: (b) => b.task ?? '',
  charm: (b) => b.charm ?? '',
  secret: (b) => (b.secret ? { ref: b.secret, needs: 'view' } : undefined),
};

/** Only the kinds `kinds` names, so that a test sees one check at a time. */
function touching(...kinds: (keyof Touches<Body>)[]): Touches<Body> {
  return Object.fromEntries(kinds.map((k) => [k, everything[k]])) as Touches<Body>;
}

const check = (touches: Touches<Body>, body: Body) => authorize(store, '0', 'view' as never, touches as never, body as never);

let store: Store;
let own: { relationKey: string; relationId: number; task: string; secret: string };
let foreign: { relationKey: string; relationId: number; task: string; secret: string };

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  // wordpress/0 is on machine 0, wordpress/1 on machine 1; riak's peer relation has no wordpress.
  await deploy(store, { charm: charms.wordpress, numUnits: 2, charmArchive: WORDPRESS_ARCHIVE });
  await deploy(store, { charm: charms.mysql, numUnits: 1, charmArchive: MYSQL_ARCHIVE });
  await deploy(store, { charm: charms.riak, numUnits: 1 });
  const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
  const ring = (await getRelation(store, 'riak:ring'))!;
  const queued = await enqueueOperation(store, {
    action: EXEC_ACTION,
    units: ['wordpress/0', 'wordpress/1'],
    parameters: { command: 'true', timeout: 300 },
  });
  const taskOf = (unit: string) => queued.tasks.find((t) => t.unit === unit)!.id;
  const content = { password: 'aHVudGVyMg==' };
  const ownSecret = await addSecret(store, { owner: { kind: 'application', name: 'wordpress' }, content });
  const riakSecret = await addSecret(store, { owner: { kind: 'unit', name: 'riak/0' }, content });
  own = { relationKey: key, relationId: id, task: taskOf('wordpress/0'), secret: ownSecret.uri };
  foreign = { relationKey: ring.key, relationId: ring.id, task: taskOf('wordpress/1'), secret: riakSecret.uri };
});

describe('authorize', () => {
  it('refuses a route that declares nothing it touches, whatever the request', async () => {
    await expect(check({}, { unit: 'wordpress/0' })).rejects.toThrow('agent route view declares nothing it touches');
  });

  it("hands over the caller's own unit, and refuses another machine's or one that does not exist", async () => {
    const owned = await check(touching('unit'), { unit: 'wordpress/0' });
    expect(owned.unit?.name).toBe('wordpress/0');
    await expect(check(touching('unit'), { unit: 'wordpress/1' })).rejects.toThrow(
      `permission denied: unit "wordpress/1" is not on this agent's machine`,
    );
    await expect(check(touching('unit'), { unit: 'wordpress/9' })).rejects.toThrow(`permission denied: unit "wordpress/9"`);
  });

  it("hands over its unit's relations by key and by id, and skips ones that do not exist", async () => {
    const owned = await check(touching('unit', 'relations'), {
      unit: 'wordpress/0',
      relations: [own.relationKey, own.relationId, 'nope:x', 999],
    });
    expect([...owned.relations.keys()]).toEqual([own.relationKey, own.relationId]);
    expect(owned.relations.get(own.relationKey)?.id).toBe(own.relationId);
    expect(owned.relations.get(own.relationId)?.key).toBe(own.relationKey);
  });

  it('refuses a relation its unit is not in, named by key or by id', async () => {
    await expect(
      check(touching('unit', 'relations'), { unit: 'wordpress/0', relations: [own.relationKey, foreign.relationKey] }),
    ).rejects.toThrow(`permission denied: relation "${foreign.relationKey}" is not on this agent's machine`);
    await expect(check(touching('unit', 'relations'), { unit: 'wordpress/0', relations: [foreign.relationId] })).rejects.toThrow(
      `permission denied: relation ${foreign.relationId} is not on this agent's machine`,
    );
  });

  it("hands over the unit's own task, and refuses another unit's", async () => {
    const owned = await check(touching('unit', 'task'), { unit: 'wordpress/0', task: own.task });
    expect(owned.task?.id).toBe(own.task);
    expect((await check(touching('unit', 'task'), { unit: 'wordpress/0', task: 'no-such-task' })).task).toBeUndefined();
    await expect(check(touching('unit', 'task'), { unit: 'wordpress/0', task: foreign.task })).rejects.toThrow(
      `permission denied: task ${foreign.task} is not on this agent's machine`,
    );
  });

  it("lets the unit read its application's charm archive, and no other", async () => {
    await expect(check(touching('unit', 'charm'), { unit: 'wordpress/0', charm: WORDPRESS_ARCHIVE })).resolves.toBeDefined();
    await expect(check(touching('unit', 'charm'), { unit: 'wordpress/0', charm: MYSQL_ARCHIVE })).rejects.toThrow(
      `permission denied: charm archive ${MYSQL_ARCHIVE} is not on this agent's machine`,
    );
  });

  it("hands over its application's secret, and refuses one never granted", async () => {
    const owned = await check(touching('unit', 'secret'), { unit: 'wordpress/0', secret: own.secret });
    expect(owned.secret && secretUri(owned.secret.id)).toBe(own.secret);
    await expect(check(touching('unit', 'secret'), { unit: 'wordpress/0', secret: foreign.secret })).rejects.toThrow(/permission denied/);
    // A route whose secret is optional and that names none gets none.
    expect((await check(touching('unit', 'secret'), { unit: 'wordpress/0' })).secret).toBeUndefined();
  });

  it.each(['relations', 'task', 'charm', 'secret'] as const)(
    'refuses a route declaring %s without the unit it is checked against',
    async (kind) => {
      const body: Body = { relations: [own.relationKey], task: own.task, charm: WORDPRESS_ARCHIVE, secret: own.secret };
      const named = kind === 'relations' ? 'relations without the unit they are' : `a ${kind} without the unit it is`;
      await expect(check(touching(kind), body)).rejects.toThrow(`agent route view names ${named} checked against`);
    },
  );
});
