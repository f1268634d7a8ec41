import { beforeEach, describe, expect, it } from 'vitest';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import type { ErrorCode } from '#shared/domain/errors.js';
import { refs } from '#shared/domain/plan.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { commit } from '#shared/state/engine/commit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { destroyUnit, destroyUnitByAgent } from '#shared/state/operations/destroy-unit.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getMachine, getUnit } from '#shared/state/engine/reads.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import type { Store } from '#shared/state/engine/store.js';
import { ensureSubordinateDying } from '#shared/state/operations/subordinate-dying.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

const WP_DB = 'wordpress:db mysql:server';
const WP_LOGGING = 'logging:logging-directory wordpress:logging-dir';

/** Expects `op` to fail with exactly `message` (and `code`), leaving every item as it was. */
const expectRefused = (op: () => Promise<unknown>, message: string, code?: ErrorCode) => expectRefusedUnchanged(store, op, message, code);

/** Setup: the unit's agent has started (it reports a status other than "allocating"). */
async function startAgent(unit: string) {
  await commit(store, [{ op: 'update', ref: refs.unit(unit), set: { agentStatus: { current: 'idle', since: new Date().toISOString() } } }]);
}

/** wordpress/0 (started, on machine 0) in scope of its container relation with logging, which gave it logging/0. */
async function principalWithSubordinate() {
  await deploy(store, { charm: charms.wordpress });
  await deploy(store, { charm: charms.logging });
  await addRelation(store, ['wordpress', 'logging']);
  await startAgent('wordpress/0');
  const { subordinate } = await enterScope(store, 'wordpress/0', WP_LOGGING, {});
  expect(subordinate).toBe('logging/0');
}

describe('destroy-unit', () => {
  it('refuses a unit that does not exist', async () => {
    await deploy(store, { charm: charms.wordpress });
    await expectRefused(() => destroyUnit(store, 'wordpress/9'), 'unit "wordpress/9" does not exist', 'not-found');
  });

  it('"(destroying a subordinate directly is impossible)": remove-unit refuses a subordinate', async () => {
    await principalWithSubordinate();
    await expectRefused(
      () => destroyUnit(store, 'logging/0'),
      'unit "logging/0" is a subordinate, to remove use remove-relation. Note: this will remove all units of "logging"',
      'invalid-argument',
    );
  });

  it('"If the unit is not Alive, abort without error": destroying it again is a no-op', async () => {
    await deploy(store, { charm: charms.wordpress });
    await startAgent('wordpress/0');
    expect(await destroyUnit(store, 'wordpress/0')).toBe('dying');
    const before = await dumpTable(store);
    expect(await destroyUnit(store, 'wordpress/0')).toBe('already-dying');
    expect(await destroyUnitByAgent(store, 'wordpress/0')).toBe('already-dying');
    expect(await dumpTable(store)).toEqual(before);
  });

  it('"a unit assigned to a machine that has not been provisioned can be removed directly": removed at once, its machine keeps no reference', async () => {
    const { machines } = await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    expect(await destroyUnit(store, 'wordpress/0')).toBe('removed');
    expect(await getUnit(store, 'wordpress/0')).toBeUndefined();
    expect((await getMachine(store, machines[0]!))?.principals).toEqual([]);
    expect((await getApplication(store, 'wordpress'))?.unitCount).toBe(1);
  });

  it('the short-cut asserts what it read: an agent starting meanwhile makes it set the unit Dying instead', async () => {
    await deploy(store, { charm: charms.wordpress });
    // Setup: the agent starts between destroy-unit's read and its transaction.
    let raced = false;
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && !raced) {
          raced = true;
          await startAgent('wordpress/0');
        }
        return next(args);
      },
      { step: 'initialize', name: 'agentStartsMeanwhile' },
    );
    expect(await destroyUnit(store, 'wordpress/0')).toBe('dying');
    expect(await getUnit(store, 'wordpress/0')).toMatchObject({ life: 'dying', agentStatus: { current: 'idle' } });
  });

  it('a started unit is only "Set ... to Dying"', async () => {
    await deploy(store, { charm: charms.wordpress });
    await startAgent('wordpress/0');
    expect(await destroyUnit(store, 'wordpress/0')).toBe('dying');
    expect(await getUnit(store, 'wordpress/0')).toMatchObject({ life: 'dying', machine: '0' });
    expect((await getMachine(store, '0'))?.principals).toEqual(['wordpress/0']);
  });

  it('"destroying a principal destroys all its subordinates": they become Dying in the same transaction', async () => {
    await principalWithSubordinate();
    expect(await destroyUnit(store, 'wordpress/0')).toBe('dying');
    expect((await getUnit(store, 'wordpress/0'))?.life).toBe('dying');
    expect((await getUnit(store, 'logging/0'))?.life).toBe('dying');
  });

  it('a never-started principal with a subordinate is not removed at once, but set Dying with it', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.logging });
    await addRelation(store, ['wordpress', 'logging']);
    await enterScope(store, 'wordpress/0', WP_LOGGING, {});
    expect(await destroyUnit(store, 'wordpress/0')).toBe('dying');
    expect((await getUnit(store, 'logging/0'))?.life).toBe('dying');
  });

  it("the unit agent sets its own unit Dying, a subordinate's included", async () => {
    await principalWithSubordinate();
    expect(await destroyUnitByAgent(store, 'logging/0')).toBe('dying');
    expect((await getUnit(store, 'logging/0'))?.life).toBe('dying');
    expect((await getUnit(store, 'wordpress/0'))?.life).toBe('alive');
  });
});

describe('a subordinate becoming Dying', () => {
  it('stays Alive while an Alive container relation joins it to its principal', async () => {
    await principalWithSubordinate();
    expect(await ensureSubordinateDying(store, 'logging/0')).toBe('still-related');
    expect((await getUnit(store, 'logging/0'))?.life).toBe('alive');
  });

  it('"the last Alive relation between its service and its principal\'s service is no longer Alive" → Dying', async () => {
    await principalWithSubordinate();
    expect((await destroyRelation(store, ['wordpress', 'logging'])).outcome).toBe('dying');
    expect(await ensureSubordinateDying(store, 'logging/0')).toBe('dying');
    expect((await getUnit(store, 'logging/0'))?.life).toBe('dying');
  });
});

describe('unit death', () => {
  it('"may not become Dead while any unit subordinate to it exists"', async () => {
    await principalWithSubordinate();
    await destroyUnit(store, 'wordpress/0');
    await leaveScope(store, 'wordpress/0', WP_LOGGING);
    await expectRefused(() => ensureUnitDead(store, 'wordpress/0'), 'unit has subordinates', 'has-assignments');
  });

  it('"may not become Dead ... while the unit is in scope for any relation"', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await addRelation(store, ['wordpress', 'mysql']);
    await startAgent('wordpress/0');
    await enterScope(store, 'wordpress/0', WP_DB, {});
    await destroyUnit(store, 'wordpress/0');
    await expectRefused(
      () => ensureUnitDead(store, 'wordpress/0'),
      `unit "wordpress/0" is still in scope of relations: "${WP_DB}"`,
      'has-assignments',
    );
    await leaveScope(store, 'wordpress/0', WP_DB);
    expect(await ensureUnitDead(store, 'wordpress/0')).toBe('dead');
  });

  it('"Wait for all its subordinates to become Dead, and remove them from state. Set its unit to Dead."', async () => {
    await principalWithSubordinate();
    await destroyUnit(store, 'wordpress/0');
    await leaveScope(store, 'wordpress/0', WP_LOGGING);
    expect(await ensureUnitDead(store, 'logging/0')).toBe('dead');
    // "If the unit is a subordinate unit, unassign it from its principal unit."
    expect(await removeUnit(store, 'logging/0')).toEqual({ removed: true, applicationRemoved: false });
    expect((await getUnit(store, 'wordpress/0'))?.subordinates).toEqual([]);
    expect((await getApplication(store, 'logging'))?.unitCount).toBe(0);
    expect(await ensureUnitDead(store, 'wordpress/0')).toBe('dead');
  });

  it('setting a Dead unit Dead again is a no-op', async () => {
    await deploy(store, { charm: charms.wordpress });
    await startAgent('wordpress/0');
    await destroyUnit(store, 'wordpress/0');
    await ensureUnitDead(store, 'wordpress/0');
    const before = await dumpTable(store);
    expect(await ensureUnitDead(store, 'wordpress/0')).toBe('already-dead');
    expect(await dumpTable(store)).toEqual(before);
  });
});

describe('unit removal', () => {
  it('a started unit goes Dying, then Dead, then its removal unassigns it and decrements the unit count', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 2 });
    await startAgent('wordpress/0');
    expect(await destroyUnit(store, 'wordpress/0')).toBe('dying');
    expect(await ensureUnitDead(store, 'wordpress/0')).toBe('dead');
    expect(await removeUnit(store, 'wordpress/0')).toEqual({ removed: true, applicationRemoved: false });
    expect(await getUnit(store, 'wordpress/0')).toBeUndefined();
    expect((await getMachine(store, '0'))?.principals).toEqual([]);
    expect(await getApplication(store, 'wordpress')).toMatchObject({ life: 'alive', unitCount: 1 });
  });

  it.each(['alive', 'dying'])('"If the unit is not Dead" its removal fails (%s)', async (life) => {
    await deploy(store, { charm: charms.wordpress });
    await startAgent('wordpress/0');
    if (life === 'dying') await destroyUnit(store, 'wordpress/0');
    await expectRefused(() => removeUnit(store, 'wordpress/0'), 'cannot remove unit "wordpress/0": unit is not dead', 'not-dead');
  });

  it('removing a removed unit is a no-op', async () => {
    await deploy(store, { charm: charms.wordpress });
    await destroyUnit(store, 'wordpress/0');
    expect(await removeUnit(store, 'wordpress/0')).toEqual({ removed: false, applicationRemoved: false });
  });
});
