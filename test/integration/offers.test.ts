import { beforeEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '#shared/domain/errors.js';
import type { Offer, RemoteApplication } from '#shared/domain/cross-model.js';
import { refs } from '#shared/domain/plan.js';
import { commit } from '#shared/state/engine/commit.js';
import { getApplication, getItem, getModel } from '#shared/state/engine/reads.js';
import { MODEL_ROUND_WAIT_MS } from '#shared/state/operations/cleanup/model.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import { dumpTable } from '../support/table-dump.js';
import type { Store } from '#shared/state/engine/store.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { addOffer, consumeOffer, removeOffer, removeSaas } from '#shared/state/operations/offers.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { listOffers, listRemoteApplications } from '#shared/state/queries/offers.js';
import { charms } from '../support/charms.js';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import { freshStore } from '../support/table.js';

// Two models of one controller: `default` offers mysql's `server`, `other` consumes it.
let offering: Store;
let consuming: Store;
beforeEach(async () => {
  offering = await freshStore();
  await ensureModel(offering);
  await addModel(offering, { name: 'other' });
  consuming = await storeOfModel(offering, 'other');
  await deploy(offering, { charm: charms.mysql, numUnits: 0 });
  await deploy(consuming, { charm: charms.wordpress, numUnits: 0 });
});

const refused = (store: Store, op: () => Promise<unknown>, message: string, code?: ErrorCode) =>
  expectRefusedUnchanged(store, op, message, code);
const offerOf = (name: string) => getItem<Offer>(offering, refs.offer(offering.model, name));
const saasOf = (name: string) => getItem<RemoteApplication>(consuming, refs.remoteApplication(name));

describe('offer', () => {
  it("offers an Alive application's endpoints under a name, held by the application", async () => {
    expect(await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' })).toEqual({ url: 'admin/default.db' });
    expect(await offerOf('db')).toMatchObject({
      application: 'mysql',
      endpoints: [{ name: 'server', role: 'provider', interface: 'mysql' }],
      consumers: [],
      connections: [],
    });
    expect((await getApplication(offering, 'mysql'))?.offers).toEqual(['db']);
    expect((await listOffers(offering)).map((o) => o.name)).toEqual(['db']);
  });

  it('the same offer again changes nothing; another under the name is refused', async () => {
    await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' });
    await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' });
    expect(await listOffers(offering)).toHaveLength(1);
    await refused(
      offering,
      () => addOffer(offering, { application: 'mysql', endpoints: ['juju-info'], name: 'db' }),
      'cannot add application offer "db": application offer already exists',
      'already-exists',
    );
  });

  it('refuses an endpoint the charm lacks and an application that does not exist, changing nothing', async () => {
    await refused(
      offering,
      () => addOffer(offering, { application: 'mysql', endpoints: ['nope'], name: 'mysql' }),
      'cannot add application offer "mysql": application "mysql" has no "nope" relation',
      'not-found',
    );
    await refused(
      offering,
      () => addOffer(offering, { application: 'ghost', endpoints: ['db'], name: 'ghost' }),
      'cannot add application offer "ghost": application "ghost" not found',
      'not-found',
    );
  });

  it('an offered application is not removed: "application is used by 1 offer"', async () => {
    await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' });
    await refused(
      offering,
      () => destroyApplication(offering, 'mysql'),
      'cannot destroy application "mysql": application is used by 1 offer',
    );
    await removeOffer(offering, { name: 'db', force: false });
    expect(await destroyApplication(offering, 'mysql')).toBe('removed');
  });
});

describe('consume', () => {
  beforeEach(async () => {
    await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' });
  });

  it("makes a remote application in the consuming model, listed among the offer's consumers", async () => {
    expect(await consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'dbalias' })).toEqual({ name: 'dbalias' });
    expect(await saasOf('dbalias')).toMatchObject({
      life: 'alive',
      url: 'admin/default.db',
      offerModel: 'default',
      offerModelKey: offering.model,
      offer: 'db',
      application: 'mysql',
      endpoints: [{ name: 'server', role: 'provider', interface: 'mysql' }],
      relations: [],
    });
    expect((await offerOf('db'))?.consumers).toEqual([`${consuming.model}#dbalias`]);
    expect((await listRemoteApplications(consuming)).map((s) => s.name)).toEqual(['dbalias']);
    // Nothing of the offering model's is the consuming model's.
    expect(await listRemoteApplications(offering)).toEqual([]);
  });

  it("consuming twice under one alias changes nothing; another offer under it, or an application's name, is refused", async () => {
    await consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'dbalias' });
    await consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'dbalias' });
    expect((await offerOf('db'))?.consumers).toHaveLength(1);
    await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db2' });
    await refused(
      consuming,
      () => consumeOffer(consuming, { offerModel: 'default', offer: 'db2', alias: 'dbalias' }),
      'cannot add remote application "dbalias": remote application already exists',
      'already-exists',
    );
    await refused(
      consuming,
      () => consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'wordpress' }),
      'cannot add remote application "wordpress": local application with same name already exists',
      'already-exists',
    );
    await refused(
      consuming,
      () => deploy(consuming, { charm: charms.mysql, name: 'dbalias', numUnits: 0 }),
      'cannot add application "dbalias": remote application with same name already exists',
      'already-exists',
    );
  });

  it("relate with a remote application whose offer has gone is refused in Juju's words, changing nothing", async () => {
    await consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'dbalias' });
    await removeOffer(offering, { name: 'db', force: false });
    await refused(
      consuming,
      () => addRelation(consuming, ['wordpress', 'dbalias']),
      'cannot add relation "wordpress:db dbalias:server": application offer "admin/default.db" not found',
      'not-found',
    );
  });

  it('refuses an offer that does not exist, and one of its own model', async () => {
    await refused(
      consuming,
      () => consumeOffer(consuming, { offerModel: 'default', offer: 'nope', alias: 'nope' }),
      'application offer "admin/default.nope" not found',
      'not-found',
    );
    await expect(consumeOffer(offering, { offerModel: 'default', offer: 'db', alias: 'x' })).rejects.toThrow(
      'cannot add remote application "x": an offer cannot be consumed in its own model',
    );
  });

  it('one offer removed between the read and the commit is not consumed: the retry finds it gone', async () => {
    // The offer goes after consume's plan read it: its transaction is cancelled, and the plan
    // made again from a fresh read refuses.
    const removing = removeOffer(offering, { name: 'db', force: false });
    const consuming1 = consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'dbalias' });
    const [removed, consumed] = await Promise.allSettled([removing, consuming1]);
    expect(removed.status).toBe('fulfilled');
    // Either consume committed first (and remove-offer, which does not wait for consumers, went
    // after), or it saw the offer gone; never a consumer of an offer that is no more.
    const offer = await offerOf('db');
    expect(offer).toBeUndefined();
    if (consumed.status === 'rejected') expect(await saasOf('dbalias')).toBeUndefined();
  });
});

describe('remove-offer and remove-saas', () => {
  beforeEach(async () => {
    await addOffer(offering, { application: 'mysql', endpoints: ['server'], name: 'db' });
    await consumeOffer(consuming, { offerModel: 'default', offer: 'db', alias: 'dbalias' });
  });

  it('an offer with connections is not removed without --force: "offer has 1 relation"', async () => {
    // A connection as a cross-model relation records it on the offer.
    await commit(offering, [{ op: 'update', ref: refs.offer(offering.model, 'db'), addToSet: { connections: [`${consuming.model}#x`] } }]);
    await refused(
      offering,
      () => removeOffer(offering, { name: 'db', force: false }),
      'cannot delete application offer "db": offer has 1 relation',
      'has-assignments',
    );
    await removeOffer(offering, { name: 'db', force: true });
    expect(await offerOf('db')).toBeUndefined();
    expect((await getApplication(offering, 'mysql'))?.offers).toEqual([]);
  });

  it("remove-offer leaves the consumer's remote application, which remove-saas then removes", async () => {
    await removeOffer(offering, { name: 'db', force: false });
    expect(await saasOf('dbalias')).toBeDefined();
    await removeSaas(consuming, 'dbalias');
    expect(await saasOf('dbalias')).toBeUndefined();
  });

  it('remove-saas takes the consumer off the offer; an unknown one is refused', async () => {
    await removeSaas(consuming, 'dbalias');
    expect(await saasOf('dbalias')).toBeUndefined();
    expect((await offerOf('db'))?.consumers).toEqual([]);
    await refused(consuming, () => removeSaas(consuming, 'dbalias'), 'remote application "dbalias" not found', 'not-found');
    await refused(offering, () => removeOffer(offering, { name: 'db2', force: false }), 'application offer "db2" not found', 'not-found');
  });
});

describe('destroying either model', () => {
  let clock: number;
  let offerer: Store;
  let consumer: Store;
  beforeEach(async () => {
    clock = Date.parse('2026-01-01T00:00:00Z');
    offerer = await freshStore({ now: () => new Date(clock) });
    await ensureModel(offerer);
    await addModel(offerer, { name: 'staging' });
    await addModel(offerer, { name: 'other' });
    consumer = await storeOfModel(offerer, 'other');
    offerer = await storeOfModel(offerer, 'staging');
    await deploy(offerer, { charm: charms.mysql, numUnits: 0 });
    await addOffer(offerer, { application: 'mysql', endpoints: ['server'], name: 'db' });
    await consumeOffer(consumer, { offerModel: 'staging', offer: 'db', alias: 'dbalias' });
  });

  /** Rounds of the model's cleanup, each a round's wait later, until the model is gone. */
  async function untilGone(model: Store): Promise<void> {
    for (let round = 0; round < 10 && (await getModel(model)); round++) {
      await runAllCleanups(model);
      clock += MODEL_ROUND_WAIT_MS;
    }
    expect(await getModel(model)).toBeUndefined();
  }

  it('the offering model takes its offers with it; the consumer keeps its remote application, the offer gone', async () => {
    await destroyModel(offerer);
    await untilGone(offerer);
    expect(
      (await dumpTable(offerer)).filter((i) => String(i.pk).startsWith(`${offerer.model}#`) && !String(i.pk).includes('#STATUSLOG#')),
    ).toEqual([]);
    expect(await getItem(consumer, refs.remoteApplication('dbalias'))).toMatchObject({ url: 'admin/staging.db' });
  });

  it('the consuming model takes its remote applications with it, and leaves the offer without a consumer', async () => {
    await destroyModel(consumer);
    await untilGone(consumer);
    expect(await getItem(consumer, refs.remoteApplication('dbalias'))).toBeUndefined();
    expect((await getItem<Offer>(offerer, refs.offer(offerer.model, 'db')))?.consumers).toEqual([]);
  });
});
