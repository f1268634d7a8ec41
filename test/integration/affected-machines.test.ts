import { beforeEach, describe, expect, it } from 'vitest';
import type { Application } from '#shared/domain/entities.js';
import { affectedMachines } from '#shared/messaging/affected-machines.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

describe('affected machines', () => {
  it("pages through a large application's units instead of collecting them at once", async () => {
    const pageSize = 10;
    const { machines } = await deploy(store, { charm: charms.mysql, numUnits: 2 * pageSize + 5 });
    const app = (await getApplication(store, 'mysql')) as Application;

    const pages: string[][] = [];
    for await (const page of affectedMachines(
      store,
      { kind: 'application', oldImage: { ...app }, newImage: { ...app, life: 'dying' } },
      pageSize,
    ))
      pages.push(page);

    expect(pages.map((p) => p.length)).toEqual([pageSize, pageSize, 5]);
    expect(pages.flat().sort()).toEqual([...machines].sort());
  });
});
