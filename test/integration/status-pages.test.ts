// `drover status` a page at a time (shared/state/queries/status-pages.ts): the pages put together
// are the one-shot document, whatever the page size; no page is over STATUS_PAGE_MAX_BYTES however
// large the entities; and while the model changes between pages, no entity comes twice or in half.
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { refs } from '#shared/domain/plan.js';
import type { Unit } from '#shared/domain/entities.js';
import { assembleStatus, STATUS_PAGE_MAX_BYTES, type StatusPage } from '#shared/domain/status-page.js';
import { toItem } from '#shared/state/engine/codec.js';
import { ATTR } from '#shared/state/engine/keys.js';
import { getApplication, getMany } from '#shared/state/engine/reads.js';
import { listAllUnits } from '#shared/state/engine/unit-listing.js';
import type { Store } from '#shared/state/engine/store.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { readStatus } from '#shared/state/queries/status.js';
import { readStatusPageDoc } from '#shared/state/queries/status-pages.js';
import { renderTabular } from '../../cli/status/tabular.js';
import { TabularStatusPrinter } from '../../cli/status/tabular-stream.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  // A fixed clock: a document says when it was read (the model's `since`, the timestamp).
  store = await freshStore({ now: () => new Date('2026-01-01T12:00:00Z') });
  await ensureModel(store);
});

async function readPages(limit?: number, between?: (page: StatusPage) => Promise<void>): Promise<StatusPage[]> {
  const pages: StatusPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await readStatusPageDoc(store, { ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) });
    pages.push(page);
    cursor = page.cursor;
    if (cursor && between) await between(page);
  } while (cursor);
  return pages;
}

/** status-selection.test.ts's model, with a Dying relation still in scope, a Dying unit in error and more units. */
async function richModel() {
  await deploy(store, { charm: charms.wordpress, numUnits: 3 });
  await deploy(store, { charm: charms.mysql, numUnits: 2 });
  await deploy(store, { charm: charms.logging });
  await deploy(store, { charm: charms.riak, numUnits: 1 });
  await deploy(store, { charm: charms.varnish, numUnits: 1 });
  const db = await addRelation(store, ['wordpress', 'mysql']);
  const logging = await addRelation(store, ['wordpress', 'logging']);
  for (const unit of ['wordpress/0', 'wordpress/1', 'wordpress/2']) await enterScope(store, unit, logging.key, {});
  // A Dying relation still held by the units in its scope.
  for (const unit of ['wordpress/2', 'mysql/0']) await enterScope(store, unit, db.key, {});
  await destroyRelation(store, ['wordpress', 'mysql']);
  await setUnitStatus(store, 'mysql/1', { workload: { current: 'blocked', message: 'needs a password' } });
  await setUnitStatus(store, 'wordpress/1', { agent: { current: 'error', message: 'hook failed: "install"' } });
  await addMachines(store, { count: 2 }); // empty machines
  // A Dying application, whose blocked-by is computed from its relations.
  await destroyApplication(store, 'varnish');
}

describe('status a page at a time', () => {
  it('puts together the very document a one-shot read gives, whatever the page size', async () => {
    await richModel();
    const whole = await readStatus(store);
    expect(whole.relations?.some((r) => r.life === 'dying' && r['blocked-by']?.length)).toBe(true);
    expect(Object.values(whole.applications['wordpress']!.units!).some((u) => u.subordinates)).toBe(true);
    for (const limit of [1, 2, 3, 7, undefined]) {
      const pages = await readPages(limit);
      if (limit === 1) expect(pages.length).toBeGreaterThan(20);
      // The same keys in the same order: JSON and YAML print them as they come.
      expect(JSON.stringify(assembleStatus(pages))).toBe(JSON.stringify(whole));
    }
  });

  it("gives a Dying model's blocked-by on its last page, as the one-shot read has it", async () => {
    await richModel();
    await destroyModel(store);
    const whole = await readStatus(store);
    expect(whole.model['blocked-by']?.length).toBeGreaterThan(0);
    for (const limit of [2, undefined]) expect(JSON.stringify(assembleStatus(await readPages(limit)))).toBe(JSON.stringify(whole));
  });

  it("summarizes an application's units across pages when they are more than one page reads, and tells the scale", async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 30 });
    await setUnitStatus(store, 'mysql/29', { workload: { current: 'blocked', message: 'the last one' } });
    const pages = await readPages(2);
    // A page of 2 reads 10 units' summaries: mysql is sent once its 30th is counted, three pages on.
    expect(pages.slice(0, 2).map((p) => p.applications)).toEqual([undefined, undefined]);
    const scale = Object.assign({}, ...pages.map((p) => p.scale ?? {}));
    expect(scale).toEqual({ mysql: { units: 30, ready: 0 } });
    expect(assembleStatus(pages).applications['mysql']!['application-status']).toMatchObject({
      current: 'blocked',
      message: 'the last one',
    });
    expect(JSON.stringify(assembleStatus(pages))).toBe(JSON.stringify(await readStatus(store)));
  });

  it(`keeps every page under ${STATUS_PAGE_MAX_BYTES} bytes, however long the entities' messages`, async () => {
    // 1,200 units of 1,000-character messages (the most status-set takes) and a subordinate each:
    // more than a page's worth of bytes, so the byte budget, not the count, ends pages.
    await deploy(store, { charm: charms.wordpress, numUnits: 1200 });
    await deploy(store, { charm: charms.logging });
    const logging = await addRelation(store, ['wordpress', 'logging']);
    const wordpress = (await getApplication(store, 'wordpress'))!;
    const names = (await listAllUnits(store, wordpress)).map((r) => (r.kind === 'unit' ? r.name : ''));
    await enterScope(store, names[0]!, logging.key, {});
    const long = (what: string) => `${what} `.repeat(1000).slice(0, 1000);
    const units = await getMany<Unit>(store, names.map(refs.unit));
    // Each unit's index shard as commit.ts wrote it: the units added before the layout grew past
    // 128 stay in its first shard (shared/domain/shards.ts).
    const listedIn = new Map(
      (await dumpTable(store))
        .filter((i) => i[ATTR.kind] === 'unit')
        .map((i) => [String(i.name), String(i[ATTR.collectionPk]).split('#').pop()]),
    );
    const items = units.map((u) =>
      toItem(
        store.model,
        refs.unit(u.name),
        {
          ...u,
          workloadStatus: { ...u.workloadStatus, message: long('workload') },
          agentStatus: { ...u.agentStatus, message: long('agent') },
        },
        // Listed where it is.
        Number(listedIn.get(u.name)),
      ),
    );
    for (let i = 0; i < items.length; i += 25)
      await store.doc.send(
        new BatchWriteCommand({ RequestItems: { [store.table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
      );

    const pages = await readPages(100_000);
    const sizes = pages.map((p) => Buffer.byteLength(JSON.stringify(p)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(STATUS_PAGE_MAX_BYTES);
    // The budget, not the page size asked for, ended the units' pages: they are well filled.
    expect(sizes.filter((s) => s > STATUS_PAGE_MAX_BYTES / 2).length).toBeGreaterThanOrEqual(2);
    const doc = assembleStatus(pages);
    expect(Object.keys(doc.applications['wordpress']!.units!)).toHaveLength(1200);
    expect(JSON.stringify(doc)).toBe(JSON.stringify(await readStatus(store)));
    // 80–100 s on a quiet 2-core host (1,200 units deployed, then read twice): room for a busy one.
  }, 300_000);

  it('sends every entity at most once, and whole, while the model changes between pages', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 8 });
    await deploy(store, { charm: charms.wordpress, numUnits: 4 });
    await addMachines(store, { count: 6 });
    const before = await readStatus(store);
    const everything = (doc: typeof before) => [
      ...Object.keys(doc.applications).map((a) => `application ${a}`),
      ...Object.values(doc.applications).flatMap((a) => Object.keys(a.units ?? {})),
      ...Object.keys(doc.machines).map((m) => `machine ${m}`),
    ];
    let step = 0;
    const pages = await readPages(3, async () => {
      step++;
      // A model that grows as fast as it is read is never read to its end: changes for a while.
      if (step > 8) return;
      // Entities added ahead of and behind the cursor, and some taken away, between pages.
      await addUnits(store, step % 2 || step > 4 ? 'mysql' : 'wordpress', { count: 1 });
      await addMachines(store, {});
      if (step === 2) await deploy(store, { charm: charms.riak, name: 'aaa', numUnits: 1 });
      if (step === 3) await deploy(store, { charm: charms.riak, name: 'zzz', numUnits: 1 });
      if (step === 4) await destroyApplication(store, 'wordpress');
      if (step === 5) {
        // Gone altogether: Dying, Dead, removed.
        await destroyUnit(store, 'mysql/7');
        await ensureUnitDead(store, 'mysql/7');
        await removeUnit(store, 'mysql/7');
      }
      const [spare] = await addMachines(store, {});
      await destroyMachine(store, spare!);
    });
    expect(step).toBeGreaterThan(5);
    expect(await getMany(store, [refs.unit('mysql/7')])).toEqual([]);
    const sent = [
      ...pages.flatMap((p) => Object.keys(p.applications ?? {}).map((a) => `application ${a}`)),
      ...pages.flatMap((p) => (p.units ?? []).map((u) => u.name)),
      ...pages.flatMap((p) => Object.keys(p.machines ?? {}).map((m) => `machine ${m}`)),
    ];
    expect(sent.length).toBe(new Set(sent).size);
    // Whatever was there before the first page and stayed is sent.
    const after = new Set(everything(await readStatus(store)));
    for (const entity of everything(before)) if (after.has(entity)) expect(sent).toContain(entity);
    // Whole: every entry has the keys its kind always has.
    for (const page of pages) {
      for (const app of Object.values(page.applications ?? {})) expect(app).toHaveProperty('application-status.current');
      for (const unit of page.units ?? []) expect(unit.unit).toHaveProperty('juju-status.current');
      for (const machine of Object.values(page.machines ?? {})) expect(machine).toHaveProperty('instance-id');
    }
  }, 120_000);

  it('refuses a cursor it did not make, and a page size that is no whole number, changing nothing', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 3 });
    for (const cursor of [
      'garbage',
      Buffer.from('{"section":"units","after":"x"}').toString('base64url'),
      Buffer.from('[]').toString('base64url'),
    ])
      await expect(readStatusPageDoc(store, { cursor })).rejects.toMatchObject({
        code: 'invalid-argument',
        message: expect.stringMatching(/cursor/),
      });
    await expect(readStatusPageDoc(store, { limit: 0 })).rejects.toMatchObject({ code: 'invalid-argument' });
  });

  it('answers a one-shot read of a model too big for one response with an error that says to upgrade', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 4 });
    await expect(readStatus(store, { maxEntities: 5 })).rejects.toMatchObject({
      code: 'not-supported',
      message: expect.stringMatching(/upgrade drover/),
    });
    expect(Object.keys((await readStatus(store, { maxEntities: 9 })).applications)).toEqual(['mysql']);
  });

  it("never evicts the operations' snapshot cache", async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 3 });
    const cached = store.cache!.size;
    expect(cached).toBeGreaterThan(0);
    await readPages(2);
    expect(store.cache!.size).toBe(cached);
  });
});

describe('tabular status printed as its pages arrive', () => {
  const print = (pages: StatusPage[], relations = true) => {
    const chunks: string[] = [];
    const printer = new TabularStatusPrinter((text) => chunks.push(text), { relations, colour: false });
    const afterEach: number[] = [];
    for (const page of pages) {
      printer.add(page);
      afterEach.push(chunks.length);
    }
    return { out: chunks.join(''), afterEach, empty: printer.empty };
  };
  /** Lines with their runs of spaces as one: columns are sized per chunk, the cells are the same. */
  const cells = (text: string) => text.split('\n').map((line) => line.replace(/ +/g, ' '));

  it("prints a one-page model exactly as the whole document's tabular form", async () => {
    await richModel();
    const pages = await readPages();
    expect(pages).toHaveLength(1);
    for (const relations of [true, false])
      expect(print(pages, relations).out).toBe(renderTabular(await readStatus(store), { relations, colour: false }));
  });

  it('prints each section as its pages come, every row once, the header once', async () => {
    await richModel();
    const pages = await readPages(2);
    const { out, afterEach } = print(pages);
    // Rows were printed before the last page came: the applications' with the first pages.
    expect(afterEach[1]).toBeGreaterThan(1);
    expect(cells(out)).toEqual(cells(renderTabular(await readStatus(store), { relations: true, colour: false })));
  });

  it('says when the model is empty', async () => {
    expect(print(await readPages()).empty).toBe(true);
    await addMachines(store, {});
    expect(print(await readPages()).empty).toBe(false);
  });
});
