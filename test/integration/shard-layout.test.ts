// Units of an application and members of a relation's scope are spread over partitions as their
// parent's layout marker says (shared/domain/shards.ts); an application or relation a controller
// made before sharding has no marker, and keeps working in its one partition with no migration.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Application, Relation } from '#shared/domain/entities.js';
import { refs, type EntityRef } from '#shared/domain/plan.js';
import { SCOPE_SHARDS, scopeShardOf, UNIT_SHARDS, unitShardOf } from '#shared/domain/shards.js';
import type { StatusPage } from '#shared/domain/status-page.js';
import { assembleStatus } from '#shared/domain/status-page.js';
import { affectedMachines } from '#shared/messaging/affected-machines.js';
import { ATTR, keyOf, refFromKey } from '#shared/state/engine/keys.js';
import { getApplication, getItem, getRelation } from '#shared/state/engine/reads.js';
import { listScope } from '#shared/state/engine/scope-listing.js';
import type { Store } from '#shared/state/engine/store.js';
import { listUnits } from '#shared/state/engine/unit-listing.js';
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
  it("spread the application's units over its index partitions and the scope's members over the scope's partitions", async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    const { machines } = await addUnits(store, 'wordpress', { count: 40 });
    const wordpress = (await getApplication(store, 'wordpress')) as Application;
    expect(wordpress.unitShards).toBe(UNIT_SHARDS);

    const items = await unitItemsOf('wordpress');
    expect(items).toHaveLength(40);
    for (const item of items)
      expect(item[ATTR.collectionPk]).toBe(`${store.model}#APP#wordpress#UNITS#${unitShardOf(wordpress, String(item.name))}`);
    const partitions = new Set(items.map((i) => i[ATTR.collectionPk]));
    expect(partitions.size).toBeGreaterThan(UNIT_SHARDS / 2);

    const { key } = await addRelation(store, ['wordpress', 'mysql']);
    const relation = (await getRelation(store, key)) as Relation;
    expect(relation.scopeShards).toBe(SCOPE_SHARDS);
    const entering = ['mysql/0', ...Array.from({ length: 11 }, (_, i) => `wordpress/${i}`)];
    for (const unit of entering) await enterScope(store, unit, key, {});
    const members = await itemsOf('scope');
    for (const member of members) {
      const unit = String(member.unit);
      expect(member.pk).toBe(`${store.model}#REL#${key}#SCOPE#${scopeShardOf(relation, unit)}`);
      // The stream's records are parsed back to the same member.
      expect(refFromKey(store.model, { pk: String(member.pk), sk: String(member.sk) })).toEqual(refs.scope(relation, unit));
    }
    expect(new Set(members.map((m) => m.pk)).size).toBeGreaterThan(1);

    // Paged through small pages, every member once.
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listScope(store, relation, { limit: 3, ...(cursor ? { cursor } : {}) });
      listed.push(...page.items.map((m) => m.unit));
      cursor = page.cursor;
    } while (cursor);
    expect(listed.sort()).toEqual([...entering].sort());

    // Leaving finds the member where entering put it.
    await leaveScope(store, 'wordpress/3', key);
    expect((await itemsOf('scope')).map((m) => m.unit)).not.toContain('wordpress/3');
    expect(await machinesHinted(wordpress, 7)).toEqual([...machines].sort());
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
});
