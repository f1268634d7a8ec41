// `drover status <selectors>` read on the server: for every kind of exact selector, the document
// the CLI cuts down (cli/status/select.ts) from what the server read for it is the one it cuts
// from the whole model, and the server read nothing of applications the selectors cannot show.
import { beforeAll, describe, expect, it } from 'vitest';
import { selectStatus, statusQuery } from '../../cli/status/select.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { readStatus } from '#shared/state/queries/status.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeAll(async () => {
  // A fixed clock: a document says when it was read (the model's `since`, the timestamp).
  store = await freshStore({ now: () => new Date('2026-01-01T12:00:00Z') });
  await ensureModel(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 2 });
  await deploy(store, { charm: charms.mysql, numUnits: 2 });
  await deploy(store, { charm: charms.logging });
  await deploy(store, { charm: charms.riak, numUnits: 1 });
  await deploy(store, { charm: charms.varnish, numUnits: 1 });
  await addRelation(store, ['wordpress', 'mysql']);
  const logging = await addRelation(store, ['wordpress', 'logging']);
  for (const unit of ['wordpress/0', 'wordpress/1']) await enterScope(store, unit, logging.key, {});
  await addMachines(store, {}); // machine 6, empty
  // A Dying application, whose blocked-by is computed from its relations.
  await destroyApplication(store, 'varnish');
});

const whole = () => readStatus(store);
const selected = (selectors: string[]) => {
  const query = statusQuery(selectors);
  return readStatus(store, { select: { applications: query.application ?? [], units: query.unit ?? [], machines: query.machine ?? [] } });
};

describe('status selectors read on the server', () => {
  const cases: [string[], string[]][] = [
    // selectors, the applications the server may read
    [['mysql'], ['mysql']],
    [['wordpress'], ['logging', 'wordpress']],
    [['wordpress/1'], ['logging', 'wordpress']],
    [['logging/0'], ['logging', 'wordpress']],
    [['logging'], ['logging', 'wordpress']],
    [['0'], ['logging', 'wordpress']],
    [['mysql', '6'], ['mysql']],
    [['varnish'], ['varnish']],
    [['nope', 'nope/0', '42'], []],
    // A name given twice (the API once answered it with a 500: BatchGetItem refuses a key twice).
    [
      ['mysql', 'mysql', 'wordpress/0', 'wordpress/0', '0', '0', 'a.b', 'a.b'],
      ['logging', 'mysql', 'wordpress'],
    ],
  ];
  for (const [selectors, read] of cases) {
    it(`${selectors.join(' ')}: the same document as cut from the whole model, reading ${read.join(', ') || 'nothing'}`, async () => {
      const partial = await selected(selectors);
      expect(Object.keys(partial.applications).sort()).toEqual(read);
      const full = await whole();
      expect(selectStatus(partial, selectors)).toEqual(selectStatus(full, selectors));
    });
  }

  it('sends wildcards and no selectors as a whole-model read', () => {
    expect(statusQuery([])).toEqual({});
    expect(statusQuery(['mysql/*', 'mysql'])).toEqual({});
    expect(statusQuery(['mysql', 'wordpress/0', '3'])).toEqual({ application: ['mysql'], unit: ['wordpress/0'], machine: ['3'] });
  });
});
