// Units of an application and members of a relation's scope are spread over partitions as their
// parent's layout marker says (shared/domain/shards.ts): one while small, the full count once its
// unit count passes SHARDS_GROW_ABOVE. An application or relation a controller made before
// sharding has no marker, and keeps working in its one partition with no migration; one made
// while the layout was fixed has the full count, and keeps it.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Application, Relation, Unit } from '#shared/domain/entities.js';
import { refs, type EntityRef } from '#shared/domain/plan.js';
import { SCOPE_SHARDS, scopeShardOf, shardOf, SHARDS_GROW_ABOVE, UNIT_SHARDS, unitShardOf } from '#shared/domain/shards.js';
import type { StatusPage } from '#shared/domain/status-page.js';
import { assembleStatus } from '#shared/domain/status-page.js';
import { affectedMachines } from '#shared/messaging/affected-machines.js';
import { ATTR, keyOf, refFromKey } from '#shared/state/engine/keys.js';
import { getApplication, getItem, getRelation } from '#shared/state/engine/reads.js';
import { listScope } from '#shared/state/engine/scope-listing.js';
import type { Store } from '#shared/state/engine/store.js';
import { listAllUnits, listUnits } from '#shared/state/engine/unit-listing.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { readStatus } from '#shared/state/queries/status.js';
import { readStatusPageDoc } from '#shared/state/queries/status-pages.js';
import { charms } from '../support/charms.js';
import { agentsTurn } from '../support/model-agents.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore({ now: () => new Date('2026-01-01T12:00:00Z') });
  await ensureModel(store);
});

/**
 * Makes a just-created application or relation what a controller before sharding wrote: the same
 * item without its layout marker. Done before it has units or members, so everything it gets
 * after goes where that controller put it.
 */
async function asBeforeSharding(ref: EntityRef, marker: 'unitShards' | 'scopeShards'): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: keyOf(store.model, ref),
      UpdateExpression: 'REMOVE #marker',
      ConditionExpression: 'attribute_exists(#marker)',
      ExpressionAttributeNames: { '#marker': marker },
    }),
  );
  // The process's snapshot cache still has the item as created: it learns the item as it is now.
  await getItem(store, ref, { fresh: true });
}

/** Makes a just-created application or relation what a controller with the fixed layout wrote: the full count from the start. */
async function asFixedLayout(ref: EntityRef, marker: 'unitShards' | 'scopeShards', shards: number): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: keyOf(store.model, ref),
      UpdateExpression: 'SET #marker = :shards',
      ConditionExpression: '#marker = :first',
      ExpressionAttributeNames: { '#marker': marker },
      ExpressionAttributeValues: { ':shards': shards, ':first': 1 },
    }),
  );
  await getItem(store, ref, { fresh: true });
}

/** Counts the Queries the store sends from now on. */
function countQueries(): () => number {
  let count = 0;
  const send = store.doc.send.bind(store.doc);
  store.doc.send = ((command: object, ...rest: unknown[]) => {
    if (command.constructor.name === 'QueryCommand') count++;
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof store.doc.send;
  return () => count;
}

const applicationOf = async (name: string) => (await getApplication(store, name)) as Application;
const relationOf = async (key: string) => (await getRelation(store, key)) as Relation;
const names = (listed: EntityRef[]) => listed.map((r) => (r.kind === 'unit' ? r.name : ''));

async function allScope(relation: Relation, limit: number): Promise<string[]> {
  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listScope(store, relation, { limit, ...(cursor ? { cursor } : {}) });
    listed.push(...page.items.map((m) => m.unit));
    cursor = page.cursor;
  } while (cursor);
  return listed;
}

const itemsOf = async (kind: EntityRef['kind']) => (await dumpTable(store)).filter((i) => i[ATTR.kind] === kind);
const unitItemsOf = async (application: string) =>
  (await itemsOf('unit')).filter((i) => String(i.name).startsWith(`${application}/`) && i[ATTR.collectionPk] !== undefined);

async function readPages(limit: number, between?: () => Promise<void>): Promise<StatusPage[]> {
  const pages: StatusPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await readStatusPageDoc(store, { ...(cursor ? { cursor } : {}), limit });
    pages.push(page);
    cursor = page.cursor;
    if (cursor && between) await between();
  } while (cursor);
  return pages;
}

const unitsSent = (pages: StatusPage[]) => pages.flatMap((p) => (p.units ?? []).map((u) => u.name));
const numberOf = (unit: string) => Number(unit.split('/')[1]);

async function machinesHinted(application: Application, pageSize: number): Promise<string[]> {
  const machines: string[] = [];
  const images = { kind: 'application' as const, oldImage: { ...application }, newImage: { ...application, life: 'dying' } };
  for await (const page of affectedMachines(store, images, pageSize)) machines.push(...page);
  return [...new Set(machines)].sort();
}

describe('an application and a relation made before sharding', () => {
  it('keep their one partition for add-unit, scopes, status pages, the notifier and their removal', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await asBeforeSharding(refs.application('wordpress'), 'unitShards');
    await asBeforeSharding(refs.application('mysql'), 'unitShards');
    const { key } = await addRelation(store, ['wordpress', 'mysql']);
    await asBeforeSharding(refs.relation(key), 'scopeShards');

    const { machines } = await addUnits(store, 'wordpress', { count: 3 });
    await addUnits(store, 'mysql', { count: 2 });
    // The keys a controller before sharding wrote, spelled out: one index partition per application.
    const wordpressUnits = await unitItemsOf('wordpress');
    expect(wordpressUnits.map((i) => i[ATTR.collectionPk])).toEqual(Array(3).fill(`${store.model}#APP#wordpress#UNITS`));

    for (const unit of ['wordpress/0', 'wordpress/1', 'mysql/0']) await enterScope(store, unit, key, {});
    await leaveScope(store, 'wordpress/1', key);
    // Its members in the relation's own partition, as before.
    const members = await itemsOf('scope');
    expect(members.map((i) => `${String(i.pk)} ${String(i.sk)}`).sort()).toEqual([
      `${store.model}#REL#${key} SCOPE#mysql/0`,
      `${store.model}#REL#${key} SCOPE#wordpress/0`,
    ]);
    const relation = (await getRelation(store, key)) as Relation;
    expect(relation.unitCount).toBe(2);
    expect((await listScope(store, relation, { limit: 1 })).cursor).toBeDefined();

    const whole = await readStatus(store);
    expect(Object.keys(whole.applications['wordpress']!.units!)).toEqual(['wordpress/0', 'wordpress/1', 'wordpress/2']);
    for (const limit of [1, 2]) expect(JSON.stringify(assembleStatus(await readPages(limit)))).toBe(JSON.stringify(whole));
    const wordpress = (await getApplication(store, 'wordpress')) as Application;
    expect(await machinesHinted(wordpress, 2)).toEqual([...machines].sort());

    await destroyRelation(store, ['wordpress', 'mysql']);
    await leaveScope(store, 'wordpress/0', key);
    await leaveScope(store, 'mysql/0', key);
    expect(await getRelation(store, key)).toBeUndefined();
    await destroyApplication(store, 'wordpress');
    for (let round = 0; round < 3; round++) {
      await runAllCleanups(store);
      await agentsTurn(store);
    }
    expect(await getApplication(store, 'wordpress')).toBeUndefined();
    expect(await unitItemsOf('wordpress')).toEqual([]);
    expect(await itemsOf('scope')).toEqual([]);
  });
});

describe('a new application and relation', () => {
  it('start in one partition: a small application lists its units, and the notifier its machines, in one Query', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const { machines } = await addUnits(store, 'mysql', { count: 10 });
    const mysql = await applicationOf('mysql');
    expect(mysql.unitShards).toBe(1);
    const items = await unitItemsOf('mysql');
    expect(new Set(items.map((i) => i[ATTR.collectionPk]))).toEqual(new Set([`${store.model}#APP#mysql#UNITS#0`]));

    const queries = countQueries();
    const listed = await listUnits(store, mysql);
    expect(queries()).toBe(1);
    expect(names(listed.items)).toEqual(Array.from({ length: 10 }, (_, i) => `mysql/${i}`));
    expect(names(await listAllUnits(store, mysql))).toEqual(names(listed.items));
    expect(queries()).toBe(2);
    expect(await machinesHinted(mysql, 100)).toEqual([...machines].sort());
    expect(queries()).toBe(3);
  });

  it("grow the application's units to its full count in the add-unit that passes the threshold, and list, page and remove them across the growth", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    const before = await addUnits(store, 'wordpress', { count: SHARDS_GROW_ABOVE - 4 });
    expect((await applicationOf('wordpress')).unitShards).toBe(1);
    const after = await addUnits(store, 'wordpress', { count: 40 });
    const wordpress = await applicationOf('wordpress');
    expect(wordpress.unitCount).toBe(SHARDS_GROW_ABOVE + 36);
    expect(wordpress.unitShards).toBe(UNIT_SHARDS);

    // Units added before the growth (and in the transaction that grew it) stay in shard 0; later
    // ones spread: each is where its index key says, in a shard below the count.
    const items = await unitItemsOf('wordpress');
    expect(items).toHaveLength(wordpress.unitCount);
    for (const item of items) {
      const n = numberOf(String(item.name));
      const shard = n < SHARDS_GROW_ABOVE + 4 ? 0 : shardOf(String(item.name), UNIT_SHARDS);
      expect(item[ATTR.collectionPk]).toBe(`${store.model}#APP#wordpress#UNITS#${shard}`);
    }
    expect(new Set(items.map((i) => i[ATTR.collectionPk])).size).toBeGreaterThan(UNIT_SHARDS / 2);

    const every = Array.from({ length: wordpress.unitCount }, (_, i) => `wordpress/${i}`);
    expect(names(await listAllUnits(store, wordpress))).toEqual(every);
    for (const limit of [3, 33]) {
      const sent: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listUnits(store, wordpress, { limit, ...(cursor ? { cursor } : {}) });
        sent.push(...names(page.items));
        cursor = page.cursor;
      } while (cursor);
      expect(sent).toEqual(every);
    }
    expect(await machinesHinted(wordpress, 7)).toEqual([...before.machines, ...after.machines].sort());

    // Removal finds each unit where it was put: one from before the growth, one from after.
    const early = 'wordpress/3';
    const late = every.slice(SHARDS_GROW_ABOVE + 4).find((u) => shardOf(u, UNIT_SHARDS) !== 0)!;
    await destroyUnit(store, early);
    await destroyUnit(store, late);
    const left = await listAllUnits(store, await applicationOf('wordpress'));
    expect(names(left)).toEqual(every.filter((u) => u !== early && u !== late));
    expect((await unitItemsOf('wordpress')).map((i) => i.name)).not.toContain(late);
  }, 120_000);

  it('grow the scope to its full count in the enter-scope that passes the threshold; members are found, listed and left where they entered', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await addUnits(store, 'wordpress', { count: SHARDS_GROW_ABOVE + 8 });
    const { key } = await addRelation(store, ['wordpress', 'mysql']);
    expect((await relationOf(key)).scopeShards).toBe(1);
    const entering = ['mysql/0', ...Array.from({ length: SHARDS_GROW_ABOVE + 6 }, (_, i) => `wordpress/${i}`)];
    for (const unit of entering.slice(0, SHARDS_GROW_ABOVE)) await enterScope(store, unit, key, {});
    expect((await relationOf(key)).scopeShards).toBe(1);
    for (const unit of entering.slice(SHARDS_GROW_ABOVE)) await enterScope(store, unit, key, {});
    const relation = await relationOf(key);
    expect(relation.scopeShards).toBe(SCOPE_SHARDS);
    expect(relation.unitCount).toBe(entering.length);

    const members = await itemsOf('scope');
    expect(members).toHaveLength(entering.length);
    for (const member of members) {
      const unit = String(member.unit);
      // The entry that passed the threshold still entered with the count it read.
      const shard = entering.indexOf(unit) <= SHARDS_GROW_ABOVE ? 0 : scopeShardOf(relation, unit);
      expect(member.pk).toBe(`${store.model}#REL#${key}#SCOPE#${shard}`);
    }
    for (const limit of [1, 5, 100]) expect((await allScope(relation, limit)).sort()).toEqual([...entering].sort());

    // Entering again finds the member where it entered: no second member, no second count.
    const early = entering.slice(1, SHARDS_GROW_ABOVE).find((u) => shardOf(u, SCOPE_SHARDS) !== 0)!;
    await enterScope(store, early, key, {});
    expect((await itemsOf('scope')).filter((m) => m.unit === early)).toHaveLength(1);
    expect((await relationOf(key)).unitCount).toBe(entering.length);

    // Leaving removes it there, and a member that entered after the growth from its shard.
    const late = entering.slice(SHARDS_GROW_ABOVE + 1).find((u) => shardOf(u, SCOPE_SHARDS) !== 0)!;
    await leaveScope(store, early, key);
    await leaveScope(store, late, key);
    const left = (await itemsOf('scope')).map((m) => String(m.unit));
    expect(left.sort()).toEqual(entering.filter((u) => u !== early && u !== late).sort());
    expect((await relationOf(key)).unitCount).toBe(entering.length - 2);
    expect((await getItem<Unit>(store, refs.unit(early)))?.scopes).toEqual([]);
  }, 180_000);

  it('made while the layout was fixed keep their full count, and work as before', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await asFixedLayout(refs.application('wordpress'), 'unitShards', UNIT_SHARDS);
    const { key } = await addRelation(store, ['wordpress', 'mysql']);
    await asFixedLayout(refs.relation(key), 'scopeShards', SCOPE_SHARDS);
    await addUnits(store, 'wordpress', { count: 20 });
    const wordpress = await applicationOf('wordpress');
    expect(wordpress.unitShards).toBe(UNIT_SHARDS);
    for (const item of await unitItemsOf('wordpress'))
      expect(item[ATTR.collectionPk]).toBe(`${store.model}#APP#wordpress#UNITS#${unitShardOf(wordpress, String(item.name))}`);
    expect(names(await listAllUnits(store, wordpress))).toEqual(Array.from({ length: 20 }, (_, i) => `wordpress/${i}`));

    const relation = await relationOf(key);
    const entering = ['mysql/0', ...Array.from({ length: 11 }, (_, i) => `wordpress/${i}`)];
    for (const unit of entering) await enterScope(store, unit, key, {});
    for (const member of await itemsOf('scope')) {
      const unit = String(member.unit);
      expect(member.pk).toBe(`${store.model}#REL#${key}#SCOPE#${scopeShardOf(relation, unit)}`);
      // The stream's records are parsed back to the same member.
      expect(refFromKey(store.model, { pk: String(member.pk), sk: String(member.sk) })).toEqual(refs.scope(relation, unit));
    }
    expect(new Set((await itemsOf('scope')).map((m) => m.pk)).size).toBeGreaterThan(1);
    expect((await allScope(relation, 3)).sort()).toEqual([...entering].sort());
    await leaveScope(store, 'wordpress/3', key);
    expect((await itemsOf('scope')).map((m) => m.unit)).not.toContain('wordpress/3');
    expect((await relationOf(key)).scopeShards).toBe(SCOPE_SHARDS);
  });

  it('refuse a cursor that is not one of their listings, and change nothing', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 3 });
    const mysql = (await getApplication(store, 'mysql')) as Application;
    const legacyCursor = Buffer.from(JSON.stringify({ pk: 'x', sk: 'ITEM', gsi1pk: 'y', gsi1sk: 'z' })).toString('base64url');
    for (const cursor of ['garbage', legacyCursor, Buffer.from(JSON.stringify({ after: '12' })).toString('base64url')])
      await expect(listUnits(store, mysql, { limit: 2, cursor })).rejects.toMatchObject({ code: 'invalid-argument' });
  });
});

describe("status pages of a sharded application's units", () => {
  it('send them in number order across the shards, each once, at small page sizes while units come and go', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addUnits(store, 'mysql', { count: 20 });
    for (const limit of [1, 3, 7]) {
      const before = new Set(Object.keys((await readStatus(store)).applications['mysql']!.units!));
      const removed = new Set<string>();
      let turn = 0;
      // Between pages: a new unit (ahead of every number sent) and one unit removed.
      const pages = await readPages(limit, async () => {
        if (turn++ % 3 !== 0) return;
        await addUnits(store, 'mysql', { count: 1 });
        const victim = [...before].find((u) => !removed.has(u) && numberOf(u) % 5 === turn % 5);
        if (victim) {
          await destroyUnit(store, victim);
          removed.add(victim);
        }
      });
      const sent = unitsSent(pages);
      expect(new Set(sent).size).toBe(sent.length);
      expect(sent.map(numberOf)).toEqual([...sent.map(numberOf)].sort((a, b) => a - b));
      // Every unit there throughout was sent, and a unit added while paging (ahead of all) too.
      for (const unit of before) if (!removed.has(unit)) expect(sent).toContain(unit);
      expect(removed.size).toBeGreaterThan(0);
      expect(sent.some((u) => !before.has(u))).toBe(true);
    }
  }, 120_000);

  it('send each unit once, in number order, while concurrent add-units grow the application past the threshold between pages', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addUnits(store, 'mysql', { count: SHARDS_GROW_ABOVE - 6 });
    const before = new Set(Object.keys((await readStatus(store)).applications['mysql']!.units!));
    const added: string[] = [];
    let turn = 0;
    // Between the first pages: two add-units side by side, each a few transactions; one of them
    // passes the threshold while the other places units with the count it read.
    const pages = await readPages(7, async () => {
      if (turn++ > 2) return;
      const results = await Promise.all([addUnits(store, 'mysql', { count: 5 }), addUnits(store, 'mysql', { count: 6 })]);
      added.push(...results.flatMap((r) => r.units));
    });
    const mysql = await applicationOf('mysql');
    expect(mysql.unitShards).toBe(UNIT_SHARDS);
    expect(mysql.unitCount).toBe(before.size + added.length);
    const sent = unitsSent(pages);
    expect(new Set(sent).size).toBe(sent.length);
    expect(sent.map(numberOf)).toEqual([...sent.map(numberOf)].sort((a, b) => a - b));
    for (const unit of before) expect(sent).toContain(unit);
    // Added while paging, all ahead of the units sent: every one is sent.
    for (const unit of added) expect(sent).toContain(unit);

    // No unit lost from any listing, none twice; each in a shard below the count, where its key says.
    const every = [...before, ...added].sort((a, b) => numberOf(a) - numberOf(b));
    expect(names(await listAllUnits(store, mysql))).toEqual(every);
    const whole = await readStatus(store);
    expect(Object.keys(whole.applications['mysql']!.units!).sort()).toEqual([...every].sort());
    for (const item of await unitItemsOf('mysql')) {
      const shard = Number(String(item[ATTR.collectionPk]).split('#').pop());
      expect([0, shardOf(String(item.name), UNIT_SHARDS)]).toContain(shard);
    }
    const hinted = await machinesHinted(mysql, 5);
    expect(hinted).toHaveLength(every.length);
  }, 120_000);
});
