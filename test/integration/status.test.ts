import { beforeEach, describe, expect, it } from 'vitest';
import { parseConstraints } from '#shared/domain/constraints.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { readStatus, readStatusPage } from '#shared/state/queries/status.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

describe('status read model', () => {
  it("shows machines, applications and units with Juju 3.6's keys", async () => {
    await deploy(store, { charm: charms.mysql, constraints: parseConstraints('mem=2G') });
    await deploy(store, { charm: charms.riak, numUnits: 0 });
    const status = await readStatus(store);
    expect(status.machines['0']).toMatchObject({
      'juju-status': { current: 'pending' },
      'instance-id': 'pending',
      'machine-status': { current: 'pending' },
      base: { name: 'ubuntu', channel: '22.04' },
      constraints: 'arch=amd64 mem=2048M',
    });
    expect(status.applications['mysql']).toMatchObject({
      charm: 'local:mysql-0',
      base: { name: 'ubuntu', channel: '22.04' },
      'charm-origin': 'local',
      'charm-name': 'mysql',
      'charm-rev': 0,
      exposed: false,
      units: {
        'mysql/0': {
          'juju-status': { current: 'allocating' },
          'workload-status': { current: 'waiting', message: 'waiting for machine' },
          machine: '0',
        },
      },
    });
    expect(status.applications['riak']).toMatchObject({
      relations: { ring: [{ 'related-application': 'riak', interface: 'riak', scope: 'global' }] },
      'endpoint-bindings': { '': 'alpha', endpoint: 'alpha', ring: 'alpha' },
    });
    expect(status.applications['mysql']).not.toHaveProperty('life');
    // Juju 3 has no series: not on machines, not on applications.
    expect(status.machines['0']).not.toHaveProperty('series');
    expect(status.applications['mysql']).not.toHaveProperty('series');
  });

  it('reads a large model a page at a time, each entity exactly once', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 12 });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await readStatusPage(store, { limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...page.units.map((u) => u.name), ...page.machines.map((m) => `machine ${m.id}`));
      cursor = page.cursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(4);
    expect(seen.filter((s) => s.startsWith('mysql/'))).toHaveLength(12);
    expect(new Set(seen).size).toBe(24);
  });

  it("never evicts the operations' snapshot cache: what operations plan from stays, and nothing is added", async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 3 });
    const cached = store.cache!.size;
    expect(cached).toBeGreaterThan(0);
    await readStatus(store);
    await readStatus(store, { select: { applications: ['mysql'] } });
    expect(store.cache!.size).toBe(cached);
  });
});
