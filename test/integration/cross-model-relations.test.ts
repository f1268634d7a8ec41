// Relations across models (docs/architecture.md, "Relations across models"): `default` offers
// mysql's `server` as `db`, `other` consumes it as `mysqldb` and relates wordpress to it.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Offer, RemoteApplication } from '#shared/domain/cross-model.js';
import type { Relation, Unit } from '#shared/domain/entities.js';
import { refs } from '#shared/domain/plan.js';
import { BatchReads } from '#shared/messaging/batch-reads.js';
import { crossModelEcho } from '#shared/messaging/cross-model-echo.js';
import { consumerProxyName } from '#shared/domain/plans/cross-model-relation.js';
import { getItem, getModel, getRelation, getUnit } from '#shared/state/engine/reads.js';
import { MODEL_ROUND_WAIT_MS } from '#shared/state/operations/cleanup/model.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import type { Store } from '#shared/state/engine/store.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { addOffer, consumeOffer, removeOffer, removeSaas } from '#shared/state/operations/offers.js';
import { writeSettings } from '#shared/state/operations/relation-settings.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { readRelationUnits } from '#shared/state/queries/relation-units.js';
import { readSettings } from '#shared/state/queries/relation-settings.js';
import { readUnitDetails } from '#shared/state/queries/unit-relation-info.js';
import { charms } from '../support/charms.js';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import { freshStore } from '../support/table.js';

let offering: Store;
let consuming: Store;
let third: Store;
/** The two records: `wordpress:db mysqldb:server` in `other`, `<proxy>:db mysql:server` in `default`. */
const CONSUMING_KEY = 'wordpress:db mysqldb:server';
let proxy: string;
let offeringKey: string;

beforeEach(async () => {
  offering = await freshStore();
  await ensureModel(offering);
  await addModel(offering, { name: 'other' });
  await addModel(offering, { name: 'third' });
  consuming = await storeOfModel(offering, 'other');
  third = await storeOfModel(offering, 'third');
  await deploy(offering, { charm: charms.mysql, numUnits: 1 });
  await deploy(consuming, { charm: charms.wordpress, numUnits: 1 });
  await deploy(third, { charm: charms.wordpress, numUnits: 1 });
  await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' });
  await consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'mysqldb' });
  proxy = consumerProxyName(consuming.model, 'wordpress');
  offeringKey = `${proxy}:db mysql:server`;
});

const offer = () => getItem<Offer>(offering, refs.offer(offering.model, 'db'));
const saas = () => getItem<RemoteApplication>(consuming, refs.remoteApplication('mysqldb'));
const both = async () => [await getRelation(consuming, CONSUMING_KEY), await getRelation(offering, offeringKey)] as const;
const unit = (store: Store, name: string) => getUnit(store, name) as Promise<Unit>;

/** Both units in scope, each having written its settings. */
async function related() {
  await addRelation(consuming, ['mysqldb', 'wordpress']);
  await enterScope(consuming, 'wordpress/0', CONSUMING_KEY, { user: 'wp' });
  await enterScope(offering, 'mysql/0', offeringKey, { password: 'secret' });
}

describe('integrate <app> <saas>', () => {
  it('makes a record in each model, each naming the other; the offer counts the connection and the SAAS the relation', async () => {
    const made = await addRelation(consuming, ['wordpress', 'mysqldb']);
    expect(made.key).toBe(CONSUMING_KEY);
    const [mine, theirs] = await both();
    expect(proxy).toMatch(/^remote-[0-9a-f]{32}$/);
    expect(mine).toMatchObject({
      life: 'alive',
      crossModel: {
        alias: 'mysqldb',
        model: offering.model,
        relation: offeringKey,
        relationId: theirs!.id,
        application: 'mysql',
        offering: false,
      },
    });
    expect(theirs).toMatchObject({
      life: 'alive',
      crossModel: {
        alias: proxy,
        model: consuming.model,
        relation: CONSUMING_KEY,
        relationId: mine!.id,
        application: 'wordpress',
        offering: true,
      },
    });
    expect((await offer())?.connections).toEqual([`${consuming.model}#${CONSUMING_KEY}`]);
    expect((await saas())?.relations).toEqual([CONSUMING_KEY]);
  });

  it('the same relation again is refused, changing nothing', async () => {
    await addRelation(consuming, ['wordpress', 'mysqldb']);
    await expectRefusedUnchanged(
      consuming,
      () => addRelation(consuming, ['mysqldb', 'wordpress']),
      `cannot add relation "${CONSUMING_KEY}": relation ${CONSUMING_KEY}`,
      'already-exists',
    );
  });
});

describe('integrate racing remove-offer', () => {
  it('one wins whole: a relation through a kept offer, or the offer gone and no record in either model', async () => {
    const [integrated, removed] = await Promise.allSettled([
      addRelation(consuming, ['wordpress', 'mysqldb']),
      removeOffer(offering, { name: 'db', force: false }),
    ]);
    const [mine, theirs] = await both();
    if (integrated.status === 'fulfilled') {
      expect(removed.status).toBe('rejected');
      expect([mine?.life, theirs?.life]).toEqual(['alive', 'alive']);
      expect((await offer())?.connections).toHaveLength(1);
    } else {
      expect(removed.status).toBe('fulfilled');
      expect([mine, theirs, await offer()]).toEqual([undefined, undefined, undefined]);
    }
  });
});

describe('relation data across models', () => {
  it("each side lists the other's units under its own name for them, and reads their settings", async () => {
    await related();
    const [mine, theirs] = (await both()) as [Relation, Relation];
    expect((await readRelationUnits(consuming, await unit(consuming, 'wordpress/0'), mine)).members).toEqual([
      { unit: 'mysqldb/0', version: 1 },
    ]);
    expect((await readRelationUnits(offering, await unit(offering, 'mysql/0'), theirs)).members).toEqual([
      { unit: `${proxy}/0`, version: 1 },
    ]);
    expect(await readSettings(consuming, mine.id, 'mysqldb/0', mine)).toEqual({ settings: { password: 'secret' }, version: 1 });
    expect(await readSettings(offering, theirs.id, `${proxy}/0`, theirs)).toEqual({ settings: { user: 'wp' }, version: 1 });
  });

  it("show-unit shows the other model's units in scope and their data under this model's names", async () => {
    await related();
    const [info] = (await readUnitDetails(consuming, 'wordpress/0'))['relation-info'];
    expect(info).toMatchObject({
      endpoint: 'db',
      'related-endpoint': 'server',
      'local-unit': { 'in-scope': true, data: { user: 'wp' } },
      'related-units': { 'mysqldb/0': { 'in-scope': true, data: { password: 'secret' } } },
    });
    const [theirs] = (await readUnitDetails(offering, 'mysql/0'))['relation-info'];
    expect(Object.keys(theirs!['related-units'])).toEqual([`${proxy}/0`]);
  });

  it("a change on one side moves the version the other side's units see", async () => {
    await related();
    const [mine] = (await both()) as [Relation, Relation];
    const theirs = (await getRelation(offering, offeringKey))!;
    await writeSettings(offering, theirs.id, 'mysql/0', { password: 'rotated' });
    expect((await readRelationUnits(consuming, await unit(consuming, 'wordpress/0'), mine)).members).toEqual([
      { unit: 'mysqldb/0', version: 2 },
    ]);
    expect(await readSettings(consuming, mine.id, 'mysqldb/0', mine)).toEqual({ settings: { password: 'rotated' }, version: 2 });
  });
});

describe('ending a relation across models', () => {
  it('remove-relation in either model makes both records Dying; each goes when its last unit leaves, releasing the SAAS and the offer', async () => {
    await related();
    expect(await destroyRelation(consuming, ['mysqldb', 'wordpress'])).toMatchObject({ outcome: 'dying' });
    expect((await both()).map((r) => r?.life)).toEqual(['dying', 'dying']);
    await leaveScope(consuming, 'wordpress/0', CONSUMING_KEY);
    expect(await getRelation(consuming, CONSUMING_KEY)).toBeUndefined();
    expect((await saas())?.relations).toEqual([]);
    expect((await offer())?.connections).toHaveLength(1);
    await leaveScope(offering, 'mysql/0', offeringKey);
    expect(await getRelation(offering, offeringKey)).toBeUndefined();
    expect((await offer())?.connections).toEqual([]);
  });

  it('remove-relation of a relation without units in scope removes both records at once', async () => {
    await addRelation(consuming, ['wordpress', 'mysqldb']);
    expect(await destroyRelation(offering, [proxy, 'mysql'])).toMatchObject({ outcome: 'removed' });
    expect(await both()).toEqual([undefined, undefined]);
    expect((await saas())?.relations).toEqual([]);
    expect((await offer())?.connections).toEqual([]);
  });

  it('remove-saas destroys its relations on both sides and goes with the last of them, off the offer', async () => {
    await related();
    await removeSaas(consuming, 'mysqldb');
    expect((await saas())?.life).toBe('dying');
    expect((await both()).map((r) => r?.life)).toEqual(['dying', 'dying']);
    await leaveScope(consuming, 'wordpress/0', CONSUMING_KEY);
    expect(await saas()).toBeUndefined();
    expect((await offer())?.consumers).toEqual([]);
  });

  it('remove-saas of a SAAS whose relations have no unit in scope removes it, both records and the connection at once', async () => {
    await addRelation(consuming, ['wordpress', 'mysqldb']);
    await removeSaas(consuming, 'mysqldb');
    expect(await saas()).toBeUndefined();
    expect(await both()).toEqual([undefined, undefined]);
    expect(await offer()).toMatchObject({ consumers: [], connections: [] });
  });

  it('remove-offer is refused while connected; forced, it destroys the relation on both sides', async () => {
    await related();
    await expectRefusedUnchanged(
      offering,
      () => removeOffer(offering, { name: 'db', force: false }),
      'cannot delete application offer "db": offer has 1 relation',
      'has-assignments',
    );
    await removeOffer(offering, { name: 'db', force: true });
    expect(await offer()).toBeUndefined();
    expect((await both()).map((r) => r?.life)).toEqual(['dying', 'dying']);
    await leaveScope(offering, 'mysql/0', offeringKey);
    await leaveScope(consuming, 'wordpress/0', CONSUMING_KEY);
    expect(await both()).toEqual([undefined, undefined]);
  });

  it('remove-application of the consuming application destroys both records', async () => {
    await related();
    expect(await destroyApplication(consuming, 'wordpress')).toBe('dying');
    expect((await both()).map((r) => r?.life)).toEqual(['dying', 'dying']);
  });
});

describe('a third model', () => {
  it('finds neither record: its units cannot name the relation', async () => {
    await related();
    const [mine, theirs] = (await both()) as [Relation, Relation];
    expect(await getRelation(third, CONSUMING_KEY)).toBeUndefined();
    expect(await getRelation(third, offeringKey)).toBeUndefined();
    expect(mine.crossModel?.model).not.toBe(third.model);
    expect(theirs.crossModel?.model).not.toBe(third.model);
  });
});

describe('destroying either model', () => {
  let clock: number;
  beforeEach(() => {
    clock = Date.parse('2026-01-01T00:00:00Z');
    offering = { ...offering, now: () => new Date(clock) };
    consuming = { ...consuming, now: () => new Date(clock) };
  });

  /** Rounds of the model's cleanup, each a round's wait later, until the model is gone. */
  async function untilGone(model: Store): Promise<void> {
    for (let round = 0; round < 20 && (await getModel(model)); round++) {
      await runAllCleanups(model);
      clock += MODEL_ROUND_WAIT_MS;
    }
    expect(await getModel(model)).toBeUndefined();
  }

  it('the consuming model takes its side and, with it, the offering side: the offer is left unconnected', async () => {
    await addRelation(consuming, ['wordpress', 'mysqldb']);
    await destroyModel(consuming, { force: true });
    await untilGone(consuming);
    expect(await getRelation(offering, offeringKey)).toBeUndefined();
    expect(await offer()).toMatchObject({ consumers: [], connections: [] });
    expect((await getItem<{ relations: string[] }>(offering, refs.application('mysql')))?.relations).not.toContain(offeringKey);
  });

  it('the offering model, forced, takes the offer and both sides of the relation; the SAAS stays, in no relation', async () => {
    await addRelation(consuming, ['wordpress', 'mysqldb']);
    await destroyModel(offering, { force: true });
    await untilGone(offering);
    expect(await getRelation(consuming, CONSUMING_KEY)).toBeUndefined();
    expect((await saas())?.relations).toEqual([]);
    expect((await getItem<{ relations: string[] }>(consuming, refs.application('wordpress')))?.relations).not.toContain(CONSUMING_KEY);
  });
});

describe('hints across models', () => {
  /** The hint to the other model: its relation, named by its own application, so every unit in scope looks again. */
  const echoed = (model: string, relation: string, application: string) => ({
    model,
    plan: { kind: 'hint', hint: { kind: 'relation', id: relation }, lookups: [{ kind: 'scopeChanged', relation, unit: application }] },
  });

  it("a unit entering scope, its settings and its application's bag on one side tell the other model's units in scope", async () => {
    await related();
    const mine = (await getRelation(consuming, CONSUMING_KEY))!;
    const member = { relation: CONSUMING_KEY, unit: 'wordpress/0', machine: '0' };
    expect(await crossModelEcho(consuming, { kind: 'scope', newImage: member }, new BatchReads())).toEqual(
      echoed(offering.model, offeringKey, 'mysql'),
    );
    const settings = { relationId: mine.id, unit: 'wordpress/0', settings: { user: 'wp2' }, version: 2 };
    expect(await crossModelEcho(consuming, { kind: 'settings', newImage: settings }, new BatchReads())).toEqual(
      echoed(offering.model, offeringKey, 'mysql'),
    );
    const bag = { relation: offeringKey, relationId: mine.crossModel!.relationId, application: 'mysql', settings: {}, version: 1 };
    expect(await crossModelEcho(offering, { kind: 'appSettings', newImage: bag }, new BatchReads())).toEqual(
      echoed(consuming.model, CONSUMING_KEY, 'wordpress'),
    );
  });

  it('a record removed tells the other side; a local relation, or one set Dying (the other record changed too), tells nobody else', async () => {
    await related();
    const mine = (await getRelation(consuming, CONSUMING_KEY))!;
    expect(await crossModelEcho(consuming, { kind: 'relation', oldImage: { ...mine } }, new BatchReads())).toEqual(
      echoed(offering.model, offeringKey, 'mysql'),
    );
    expect(
      await crossModelEcho(consuming, { kind: 'relation', oldImage: { ...mine }, newImage: { ...mine, life: 'dying' } }, new BatchReads()),
    ).toBeUndefined();
    await deploy(third, { charm: charms.mysql, numUnits: 0 });
    await addRelation(third, ['wordpress', 'mysql']);
    const local = { relation: 'wordpress:db mysql:server', unit: 'wordpress/0', machine: '0' };
    expect(await crossModelEcho(third, { kind: 'scope', newImage: local }, new BatchReads())).toBeUndefined();
  });
});
