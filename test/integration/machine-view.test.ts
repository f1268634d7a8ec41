// A machine agent's view (shared/state/queries/machine-view.ts): everything its units' agents act
// on, in as few requests as the items' dependencies allow. A unit's application and leadership
// are read with the unit, as its name says which application it is of.
import { beforeEach, describe, expect, it } from 'vitest';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { readMachineView } from '#shared/state/queries/machine-view.js';
import { withoutCache, type Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
let requests: string[] = [];

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  requests = [];
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      requests.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize', name: 'machineViewTest' },
  );
});

/** The view of machine `id`, and the requests it took (the machine itself is read by the API request before). */
async function view(id: string) {
  const machine = (await getMachine(store, id))!;
  requests = [];
  const read = await readMachineView(withoutCache(store), machine);
  return { read, requests: [...requests] };
}

describe("a machine agent's view", () => {
  it('of a plain unit: the model, the unit, its application and leadership in one BatchGetItem', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    await claimLeadership(store, 'mysql/1', 60_000);
    const { read, requests } = await view('1');
    expect(requests).toEqual(['BatchGetItemCommand']);
    expect(read.model?.name).toBe('default');
    expect(read.units.map((u) => u.name)).toEqual(['mysql/1']);
    expect(read.applications.map((a) => a.name)).toEqual(['mysql']);
    expect(read.leadership).toEqual([expect.objectContaining({ application: 'mysql', holder: 'mysql/1', claimable: false })]);
    expect(read.relations).toEqual([]);
  });

  it('with a subordinate and a relation: each unit, application, leadership and relation, in a request per dependency', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.logging });
    const { key } = await addRelation(store, ['wordpress', 'logging']);
    await setUnitStatus(store, 'wordpress/0', { agent: { current: 'idle' } });
    const { subordinate } = await enterScope(store, 'wordpress/0', key, {});
    await claimLeadership(store, subordinate!, 60_000);
    const { read, requests } = await view('0');
    // The principal with its application; the subordinate with its; the relation.
    expect(requests).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(read.units.map((u) => u.name)).toEqual(['wordpress/0', subordinate]);
    expect(read.applications.map((a) => a.name)).toEqual(['wordpress', 'logging']);
    expect(read.leadership.map((l) => [l.application, l.holder])).toEqual([
      ['wordpress', undefined],
      ['logging', subordinate],
    ]);
    expect(read.relations.map((r) => r.key)).toEqual([key]);
  });

  it('of a machine whose unit is gone: no unit, and no application read for it is handed on', async () => {
    await deploy(store, { charm: charms.mysql });
    const machine = (await getMachine(store, '0'))!;
    const read = await readMachineView(withoutCache(store), { ...machine, principals: [...machine.principals, 'mysql/7'] });
    expect(read.units.map((u) => u.name)).toEqual(['mysql/0']);
    expect(read.applications.map((a) => a.name)).toEqual(['mysql']);
  });
});
