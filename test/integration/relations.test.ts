import type { ErrorCode } from '#shared/domain/errors.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import { isDroverError } from '#shared/domain/errors.js';
import { cleanupId } from '#shared/domain/plans/cleanups.js';
import { refs } from '#shared/domain/plan.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { commit } from '#shared/state/engine/commit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getCleanup, getRelation } from '#shared/state/engine/reads.js';
import { getRelationById, listRelations, listRelationsOfApplication } from '#shared/state/queries/relation-reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

const WP_DB = 'wordpress:db mysql:server';

/** Expects `op` to fail with exactly `message` (and `code`), leaving every item as it was. */
const expectRefused = (op: () => Promise<unknown>, message: string, code?: ErrorCode) => expectRefusedUnchanged(store, op, message, code);

/**
 * There is no destroy-application in this test's reach, so it sets the application Dying
 * directly, as destroy-application would when a unit or relation still holds it.
 */
async function makeApplicationDying(name: string) {
  await commit(store, [{ op: 'update', ref: refs.application(name), set: { life: 'dying' }, expect: { life: 'alive' } }]);
}

describe('relate', () => {
  beforeEach(async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
  });

  it('"A relation is created with `juju add-relation`": Alive, in both applications\' relation sets', async () => {
    const result = await addRelation(store, ['wordpress', 'mysql']);
    expect(result).toEqual({ key: WP_DB, id: 0, pending: [] });
    expect(await getRelation(store, WP_DB)).toMatchObject({ life: 'alive', id: 0, unitCount: 0, scope: 'global' });
    expect((await getApplication(store, 'wordpress'))?.relations).toEqual([WP_DB]);
    expect((await getApplication(store, 'mysql'))?.relations).toEqual([WP_DB]);
    expect((await listRelationsOfApplication(store, 'mysql')).map((r) => r.key)).toEqual([WP_DB]);
  });

  it('"No two relations with the same canonical name can exist": a duplicate is refused', async () => {
    await addRelation(store, ['wordpress', 'mysql']);
    await expectRefused(
      () => addRelation(store, ['mysql:server', 'wordpress:db']),
      `cannot add relation "${WP_DB}": relation ${WP_DB}`,
      'already-exists',
    );
  });

  it('"a relation cannot be created while an identical relation exists in state": not while a Dying one exists', async () => {
    await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', WP_DB, { 'private-address': '10.0.0.1' });
    expect((await destroyRelation(store, ['wordpress', 'mysql'])).outcome).toBe('dying');
    await expectRefused(
      () => addRelation(store, ['wordpress', 'mysql']),
      `cannot add relation "${WP_DB}": relation ${WP_DB} is dying, but not yet removed`,
      'already-exists',
    );
  });

  it('"When a service is Alive ... relations can be added using the service\'s endpoints": not when it is Dying', async () => {
    await makeApplicationDying('wordpress');
    await expectRefused(
      () => addRelation(store, ['wordpress', 'mysql']),
      `cannot add relation "${WP_DB}": application "wordpress" is not alive`,
      'not-alive',
    );
  });

  it('refuses an application that does not exist', async () => {
    await expectRefused(() => addRelation(store, ['wordpress', 'wooble']), 'application "wooble" not found', 'not-found');
  });

  it("honours an endpoint's limit", async () => {
    await deploy(store, { charm: charms.mariadb, numUnits: 0 });
    await addRelation(store, ['wordpress', 'mysql']);
    await expectRefused(
      () => addRelation(store, ['wordpress', 'mariadb']),
      'cannot add relation "wordpress:db mariadb:server": establishing a new relation for wordpress:db would exceed its maximum relation limit of 1',
      'quota-exceeded',
    );
  });

  it('a Dying relation still counts against the limit until it is removed', async () => {
    await deploy(store, { charm: charms.mariadb, numUnits: 0 });
    await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', WP_DB, {});
    await destroyRelation(store, ['wordpress', 'mysql']);
    await expectRefused(
      () => addRelation(store, ['wordpress', 'mariadb']),
      'cannot add relation "wordpress:db mariadb:server": establishing a new relation for wordpress:db would exceed its maximum relation limit of 1',
      'quota-exceeded',
    );
  });

  it('a container relation requires matching series: "principal and subordinate applications\' series must match"', async () => {
    await deploy(store, { charm: charms.logging, series: 'focal' });
    await expectRefused(
      () => addRelation(store, ['wordpress', 'logging']),
      "principal and subordinate applications' series must match",
      'invalid-argument',
    );
  });

  it('a container relation requires a subordinate', async () => {
    await deploy(store, { charm: charms['log-collector'], numUnits: 0 });
    await expectRefused(
      () => addRelation(store, ['wordpress', 'log-collector']),
      'container scoped relation requires at least one subordinate application',
      'invalid-argument',
    );
  });

  it('a container relation between a principal and a subordinate has container scope', async () => {
    await deploy(store, { charm: charms.logging });
    const { key } = await addRelation(store, ['wordpress', 'logging']);
    expect(key).toBe('logging:logging-directory wordpress:logging-dir');
    expect((await getRelation(store, key))?.scope).toBe('container');
  });

  it('relation ids come from a model-wide sequence: re-adding a removed relation gives a new id', async () => {
    const first = await addRelation(store, ['wordpress', 'mysql']);
    await destroyRelation(store, first.id);
    const second = await addRelation(store, ['wordpress', 'mysql']);
    expect(second.id).toBe(first.id + 1);
    expect((await getRelationById(store, second.id))?.key).toBe(WP_DB);
  });

  it('required relations: the relation that satisfies the last one schedules assigning the waiting units', async () => {
    const blog = await deploy(store, { charm: charms.blog, numUnits: 1 });
    expect(blog.pending).toBeDefined();
    const { id, pending } = await addRelation(store, ['blog', 'mysql']);
    expect(pending).toEqual([]);
    expect(await getCleanup(store, cleanupId('assignUnits', 'blog', String(id)))).toMatchObject({ target: 'blog' });
  });

  it('required relations: relate says which required relations still hold an application back', async () => {
    await deploy(store, { charm: charms['metrics-agent'] });
    const { id, pending } = await addRelation(store, ['wordpress', 'metrics-agent']);
    expect(pending).toEqual(['application "metrics-agent" will be deployed when its required relations are added: store (mysql)']);
    expect(await getCleanup(store, cleanupId('assignUnits', 'metrics-agent', String(id)))).toBeUndefined();
  });
});

describe('relate, concurrently', () => {
  beforeEach(async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await deploy(store, { charm: charms.mariadb, numUnits: 0 });
  });

  it('two relates of the same pair make exactly one relation and one already-exists error', async () => {
    const results = await Promise.allSettled([addRelation(store, ['wordpress', 'mysql']), addRelation(store, ['mysql', 'wordpress'])]);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(isDroverError(rejected[0]?.reason, 'already-exists')).toBe(true);
    expect((await listRelations(store)).map((r) => r.key)).toEqual([WP_DB]);
    expect((await getApplication(store, 'wordpress'))?.relations).toEqual([WP_DB]);
  });

  it('two relates that together would exceed `limit: 1` leave exactly one relation', async () => {
    const results = await Promise.allSettled([addRelation(store, ['wordpress', 'mysql']), addRelation(store, ['wordpress', 'mariadb'])]);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(isDroverError(rejected[0]?.reason, 'quota-exceeded')).toBe(true);
    const relations = await listRelations(store);
    expect(relations).toHaveLength(1);
    expect((await getApplication(store, 'wordpress'))?.relations).toEqual(relations.map((r) => r.key));
  });
});

describe('remove-relation', () => {
  beforeEach(async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
  });

  it('"When a relation is destroyed with no units in scope, it will immediately become Dead and be removed from state"', async () => {
    const { id } = await addRelation(store, ['wordpress', 'mysql']);
    expect(await destroyRelation(store, ['wordpress', 'mysql'])).toEqual({ key: WP_DB, id, outcome: 'removed' });
    expect(await getRelation(store, WP_DB)).toBeUndefined();
    expect((await getApplication(store, 'wordpress'))?.relations).toEqual([]);
    expect((await getApplication(store, 'mysql'))?.relations).toEqual([]);
    // "Mark the relation's unit settings documents for future cleanup."
    expect(await getCleanup(store, cleanupId('settings', String(id)))).toMatchObject({ target: String(id) });
  });

  it('"If any unit is in scope, set the relation to Dying"', async () => {
    await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', WP_DB, {});
    expect((await destroyRelation(store, ['wordpress:db', 'mysql:server'])).outcome).toBe('dying');
    expect(await getRelation(store, WP_DB)).toMatchObject({ life: 'dying', unitCount: 1 });
    expect((await getApplication(store, 'mysql'))?.relations).toEqual([WP_DB]);
  });

  it('"If the relation is not Alive, abort without error"', async () => {
    await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', WP_DB, {});
    await destroyRelation(store, ['wordpress', 'mysql']);
    const before = await dumpTable(store);
    expect((await destroyRelation(store, ['wordpress', 'mysql'])).outcome).toBe('unchanged');
    expect(await dumpTable(store)).toEqual(before);
  });

  it('removes a relation by id', async () => {
    const { id } = await addRelation(store, ['wordpress', 'mysql']);
    expect((await destroyRelation(store, id)).outcome).toBe('removed');
    expect(await getRelation(store, WP_DB)).toBeUndefined();
  });

  it('refuses an unknown relation by endpoints', async () => {
    await expectRefused(
      () => destroyRelation(store, ['subway:db', 'mongo:server']),
      'relation "subway:db mongo:server" not found',
      'not-found',
    );
  });

  it('refuses an unknown relation by id', async () => {
    await addRelation(store, ['wordpress', 'mysql']);
    await expectRefused(() => destroyRelation(store, 999), 'relation 999 not found', 'not-found');
  });

  it('refuses a peer relation: peers "die with the application"', async () => {
    await deploy(store, { charm: charms.riak, numUnits: 0 });
    await expectRefused(
      () => destroyRelation(store, ['riak']),
      'cannot destroy relation "riak:ring": is a peer relation',
      'invalid-argument',
    );
  });

  it('"destroying a container relation destroys all subordinates in the relation": it schedules the dyingSubordinates cleanup', async () => {
    await deploy(store, { charm: charms.logging });
    const { key, id } = await addRelation(store, ['wordpress', 'logging']);
    await enterScope(store, 'wordpress/0', key, {});
    expect((await destroyRelation(store, ['wordpress', 'logging'])).outcome).toBe('dying');
    expect(await getCleanup(store, cleanupId('dyingSubordinates', 'logging', String(id)))).toMatchObject({ target: 'logging' });
  });
});
