// upgrade-charm against DynamoDB Local: one transaction on the application, asserting what it read.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseCharm } from '#shared/domain/charm.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getRelation } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { upgradeCharm } from '#shared/state/operations/upgrade-charm.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

/** wordpress with a new option and without its db endpoint. */
const wordpressWithoutDb = parseCharm(
  'name: wordpress\nseries: [jammy, focal]\nprovides:\n  url: http\n  logging-dir: {interface: logging, scope: container}\nrequires:\n  cache: {interface: varnish, limit: 2}\n',
  'options:\n  blog-title: {type: string, default: My Title}\n  theme: {type: string, default: plain}\n',
);
const wordpressNext = parseCharm(
  'name: wordpress\nseries: [jammy, focal]\nprovides:\n  url: http\n  logging-dir: {interface: logging, scope: container}\nrequires:\n  db: {interface: mysql, limit: 1}\n',
  'options:\n  theme: {type: string, default: plain}\n  blog-title: {type: string, default: Untitled}\n',
);

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 1, series: 'jammy' });
  await deploy(store, { charm: charms.mysql, numUnits: 0, series: 'jammy' });
});

describe('upgrade-charm', () => {
  it('creates the peer relations the new revision adds, in the same transaction', async () => {
    await deploy(store, { charm: charms.riak, numUnits: 0 });
    const riakWithGossip = parseCharm(
      'name: riak\nseries: [jammy]\nprovides:\n  endpoint: http\npeers:\n  ring: riak\n  gossip: riak-gossip\n',
    );
    await upgradeCharm(store, 'riak', { charm: riakWithGossip });
    expect((await getApplication(store, 'riak'))?.relations).toEqual(['riak:gossip', 'riak:ring']);
    const gossip = await getRelation(store, 'riak:gossip');
    expect(gossip).toMatchObject({ life: 'alive', endpoints: [{ application: 'riak', name: 'gossip', role: 'peer' }] });
    expect(gossip!.id).toBeGreaterThan((await getRelation(store, 'riak:ring'))!.id);
  });

  it('gives the application the new charm and archive at the next revision, keeps what the user set, and adds new defaults', async () => {
    await setApplicationConfig(store, 'wordpress', { set: { 'blog-title': 'News' } });
    expect(await upgradeCharm(store, 'wordpress', { charm: wordpressNext, charmArchive: 'sha-next' })).toEqual({
      application: 'wordpress',
      charmUrl: 'local:jammy/wordpress-1',
    });
    expect(await getApplication(store, 'wordpress')).toMatchObject({
      charmUrl: 'local:jammy/wordpress-1',
      charmArchive: 'sha-next',
      charm: wordpressNext,
      config: { 'blog-title': 'News', theme: 'plain' },
      configVersion: 2,
      forceUnits: false,
    });
    await upgradeCharm(store, 'wordpress', { charm: wordpressNext });
    const app = await getApplication(store, 'wordpress');
    expect(app?.charmUrl).toBe('local:jammy/wordpress-2');
    expect(app?.charmArchive).toBeUndefined();
  });

  it('two concurrent upgrades both commit, one revision each', async () => {
    const results = await Promise.all([
      upgradeCharm(store, 'wordpress', { charm: wordpressNext }),
      upgradeCharm(store, 'wordpress', { charm: wordpressNext }),
    ]);
    expect(results.map((r) => r.charmUrl).sort()).toEqual(['local:jammy/wordpress-1', 'local:jammy/wordpress-2']);
    expect((await getApplication(store, 'wordpress'))?.charmUrl).toBe('local:jammy/wordpress-2');
  });

  it('refuses a charm that would break an existing relation, and changes nothing', async () => {
    await addRelation(store, ['wordpress', 'mysql']);
    const before = await getApplication(store, 'wordpress');
    await expect(upgradeCharm(store, 'wordpress', { charm: wordpressWithoutDb })).rejects.toThrow(
      'cannot upgrade application "wordpress" to charm "local:jammy/wordpress-1": would break relation "wordpress:db mysql:server"; remove the relation first',
    );
    expect(await getApplication(store, 'wordpress')).toEqual(before);
  });

  it('racing with relate: never a relation on an endpoint the new charm dropped', async () => {
    const [upgraded, related] = await Promise.allSettled([
      upgradeCharm(store, 'wordpress', { charm: wordpressWithoutDb }),
      addRelation(store, ['wordpress', 'mysql']),
    ]);
    // Exactly one wins; the other re-plans against what the winner wrote and is refused.
    expect([upgraded.status, related.status].sort()).toEqual(['fulfilled', 'rejected']);
    const app = await getApplication(store, 'wordpress');
    if (upgraded.status === 'fulfilled') expect(app?.relations ?? []).toEqual([]);
    else expect(app?.charmUrl).toBe('local:jammy/wordpress-0');
  });

  it('a Dying application is upgraded only with --force-units ("Charm upgrade with force is still allowed on Dying")', async () => {
    expect(await destroyApplication(store, 'wordpress')).toBe('dying');
    await expect(upgradeCharm(store, 'wordpress', { charm: wordpressNext })).rejects.toThrow(
      'cannot upgrade application "wordpress": application is not alive; use --force-units to upgrade a dying application',
    );
    await upgradeCharm(store, 'wordpress', { charm: wordpressNext, forceUnits: true });
    expect(await getApplication(store, 'wordpress')).toMatchObject({
      life: 'dying',
      charmUrl: 'local:jammy/wordpress-1',
      forceUnits: true,
    });
  });

  it('refuses an unknown application', async () => {
    await expect(upgradeCharm(store, 'ghost', { charm: wordpressNext })).rejects.toThrow('application "ghost" not found');
  });
});
