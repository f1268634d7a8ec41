// Bugs found by the model property test (test/integration/model-property.test.ts), each reduced to
// the one interleaving that shows it. The property found them as races between two clients; here
// the race is made certain by running the other client's operation between this operation's read
// and its transaction.
import { beforeEach, describe, expect, it } from 'vitest';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { assignUnit } from '#shared/state/operations/assign-unit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getMachine, getUnit } from '#shared/state/engine/reads.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { forceDestroyApplication, forceRemoveUnit } from '#shared/state/operations/force.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { checkInvariants, LifeHistory } from '../support/invariants.js';
import { readModelState } from '../support/model-state.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

/** Runs `meanwhile` once, just before the store's next transaction is sent. */
function beforeNextTransaction(meanwhile: () => Promise<unknown>) {
  let done = false;
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && !done) {
        done = true;
        await meanwhile();
      }
      return next(args);
    },
    { step: 'initialize', name: `meanwhile${Math.random()}` },
  );
}

describe('destroy-unit', () => {
  it('"Principal units reference machines": a never-started unit assigned to a machine while remove-unit removes it is unassigned from that machine too', async () => {
    // blog/0 waits for its required relation, unassigned; relating it lets assignUnits give it a machine.
    await deploy(store, { charm: charms.blog });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addRelation(store, ['blog', 'mysql']);
    expect((await getUnit(store, 'blog/0'))?.machine).toBeUndefined();
    // The unit is assigned between remove-unit's read (no machine) and its transaction.
    beforeNextTransaction(() => assignUnit(store, 'blog/0'));

    expect(await destroyUnit(store, 'blog/0')).toBe('removed');

    expect(await getUnit(store, 'blog/0')).toBeUndefined();
    expect(await getMachine(store, '0')).toMatchObject({ principals: [] });
    expect(checkInvariants(await readModelState(store), new LifeHistory())).toEqual([]);
  });
});

describe('remove-application --force', () => {
  it('never touches an application deployed again under the same name before the cleanup ran', async () => {
    const { units } = await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await setUnitStatus(store, units[0]!, { agent: { current: 'idle' } });
    await forceDestroyApplication(store, 'mysql');
    // The old application goes by the ordinary path before the force cleanup runs.
    await forceRemoveUnit(store, units[0]!);
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await runAllCleanups(store);
    expect(await getApplication(store, 'mysql')).toMatchObject({ life: 'alive', unitCount: 1 });
  });
});
