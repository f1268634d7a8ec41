// The snapshot cache lets an operation plan without reading first. Two things must hold: the
// cache's idea of an item after a commit is exactly what DynamoDB reads back, and a stale cache
// (another process changed the item) never changes an operation's outcome, only its cost.
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { refs, type Change } from '#shared/domain/plan.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { commit } from '#shared/state/engine/commit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { keyOf } from '#shared/state/engine/keys.js';
import { ensureModel, setModelConstraints } from '#shared/state/operations/model.js';
import { getApplication, getItem, getUnit } from '#shared/state/engine/reads.js';
import { cacheId } from '#shared/state/engine/snapshot-cache.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { dynamoEndpoint } from '../support/dynamodb.js';

let store: Store;
/** Another process on the same table, with a cache of its own. */
let other: Store;

beforeEach(async () => {
  store = await freshStore();
  other = createStore({ table: store.table, endpoint: await dynamoEndpoint(), region: 'local' });
  await ensureModel(store);
});

/** Counts the requests `store` sends, by command. */
function countRequests(s: Store): Map<string, number> {
  const counts = new Map<string, number>();
  s.client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `count${Math.random()}` },
  );
  return counts;
}

const reads = (counts: Map<string, number>) =>
  (counts.get('GetItemCommand') ?? 0) + (counts.get('BatchGetItemCommand') ?? 0) + (counts.get('QueryCommand') ?? 0);

describe('the cache after a commit', () => {
  const members = fc.subarray(['a', 'b', 'c', 'd']);
  // Each attribute is touched by at most one clause of an update, as DynamoDB requires.
  const change = (ref = refs.unit('wordpress/0')): fc.Arbitrary<Change> =>
    fc.oneof(
      fc.record({
        op: fc.constantFrom('create' as const, 'put' as const),
        ref: fc.constant(ref),
        value: fc.record({
          life: fc.constantFrom('alive', 'dying'),
          scopes: members,
          subordinates: members,
          machine: fc.option(fc.constantFrom('0', '1'), { nil: undefined }),
          count: fc.integer({ min: 0, max: 9 }),
        }),
      }),
      fc.record({
        op: fc.constant('update' as const),
        ref: fc.constant(ref),
        set: fc.record(
          { life: fc.constantFrom('alive', 'dying', 'dead'), agentStatus: fc.record({ current: fc.constantFrom('idle', 'executing') }) },
          { requiredKeys: ['life'] },
        ),
        unset: fc.subarray(['machine']),
        add: fc.record({ count: fc.integer({ min: -3, max: 3 }) }),
        addToSet: fc.record({ scopes: members, openPorts: members }, { requiredKeys: [] }),
        removeFromSet: fc.record({ subordinates: members }, { requiredKeys: [] }),
      }),
      fc.record({ op: fc.constant('remove' as const), ref: fc.constant(ref) }),
    );

  it('is what DynamoDB reads back, whatever sequence of changes committed', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(change(), { minLength: 1, maxLength: 8 }), async (changes) => {
        const s = await freshStore();
        const id = cacheId(keyOf(s.model, refs.unit('wordpress/0')));
        for (const c of changes) {
          // Changes that cannot apply (an update of nothing, a create over something) are cancelled.
          const committed = await commit(s, [c]).then(
            () => true,
            () => false,
          );
          if (committed) s.cache!.committed(s.model, [c]);
          else s.cache!.cancelled(s.model, [c]);
          const cached = s.cache!.lookup(id);
          const read = await getItem(s, refs.unit('wordpress/0'));
          if (cached) expect(cached.value).toEqual(read);
          if (cached) compared++;
        }
      }),
      { numRuns: 25 },
    );
    // Most steps compare: a step whose change could not apply leaves nothing cached to compare.
    expect(compared).toBeGreaterThan(20);
  });
});

describe('a speculative operation', () => {
  it('costs its transaction and its number reservations alone when the cache knows what it reads', async () => {
    // Deploying read the model and wrote the application.
    await deploy(store, { charm: charms.wordpress });
    const counts = countRequests(store);
    await addUnits(store, 'wordpress');
    expect(reads(counts)).toBe(0);
    // The unit's number and its machine's id (shared/state/engine/number-reservations.ts).
    expect(counts.get('UpdateItemCommand')).toBe(2);
    expect(counts.get('TransactWriteItemsCommand')).toBe(1);
  });

  it('deploying under a new name reads nothing: the application is asserted absent', async () => {
    await deploy(store, { charm: charms.mysql });
    const counts = countRequests(store);
    await deploy(store, { charm: charms.mysql, name: 'db2' });
    expect(reads(counts)).toBe(0);
    expect(counts.get('TransactWriteItemsCommand')).toBe(1);
  });

  it('an operation whose cached items went stale still gets the fresh outcome: "If the unit is not Alive, abort without error"', async () => {
    await deploy(store, { charm: charms.mysql });
    await setUnitStatus(store, 'mysql/0', { agent: { current: 'idle' } });
    await destroyUnit(other, 'mysql/0');
    // `store` still believes mysql/0 Alive; its speculative plan is cancelled and re-planned.
    expect(await destroyUnit(store, 'mysql/0')).toBe('already-dying');
    expect((await getUnit(store, 'mysql/0'))?.life).toBe('dying');
  });

  it('a stale cache never puts stale constraints on a unit: "the current environment and service constraints are collapsed"', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await addUnits(store, 'wordpress');
    await setModelConstraints(other, { mem: 3072 });
    const { units } = await addUnits(store, 'wordpress');
    expect((await getUnit(other, units[0]!))?.constraints).toMatchObject({ mem: 3072 });
  });

  it('a machine added by another process meanwhile does not get its id taken again by a new machine', async () => {
    // Found by the model property, when plans numbered machines from the sequence value they read:
    // `other` last saw the machine sequence at 1, then `store` took 1.
    await deploy(other, { charm: charms.mysql });
    const [placed] = (await addMachines(store))!;
    const { units, machines } = await addUnits(other, 'mysql', { count: 2, to: [placed!] });
    expect(units).toEqual(['mysql/1', 'mysql/2']);
    expect(machines).toEqual(['2']);
    expect((await getUnit(store, 'mysql/1'))?.machine).toBe(placed);
  });

  it('an application the cache believes gone still has its unit count released when its unit is removed at once', async () => {
    // Found by the model property: `store` last saw no "blog"; `other` deployed it, with a unit
    // waiting for its required relation (never started, so remove-unit removes it at once).
    expect(await getApplication(store, 'blog')).toBeUndefined();
    await deploy(other, { charm: charms.blog });
    expect(await destroyUnit(store, 'blog/0')).toBe('removed');
    expect((await getApplication(other, 'blog'))?.unitCount).toBe(0);
  });

  it('a principal entering a container relation gets its subordinate even when the cache believes the subordinate application gone', async () => {
    await deploy(store, { charm: charms.wordpress });
    expect(await getApplication(store, 'logging')).toBeUndefined();
    await deploy(other, { charm: charms.logging });
    const { key } = await addRelation(other, ['wordpress', 'logging']);
    expect(await enterScope(store, 'wordpress/0', key, { 'private-address': '10.0.0.1' })).toEqual({ subordinate: 'logging/0' });
  });

  it('a name taken by another process meanwhile is refused with the fresh error', async () => {
    await deploy(store, { charm: charms.mysql });
    await deploy(other, { charm: charms.mysql, name: 'db' });
    await expect(deploy(store, { charm: charms.mysql, name: 'db' })).rejects.toThrow(
      'cannot add application "db": application already exists',
    );
  });

  it('a relation removed by another process is added again with a new id', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0 });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const first = await addRelation(store, ['wordpress', 'mysql']);
    await destroyRelation(other, ['wordpress', 'mysql']);
    const second = await addRelation(store, ['wordpress', 'mysql']);
    expect(second.key).toBe(first.key);
    expect(second.id).toBeGreaterThan(first.id);
  });

  it('entering a scope when settings are left from before gives them the next version, not version 1', async () => {
    await deploy(store, { charm: charms.wordpress });
    await deploy(store, { charm: charms.mysql });
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', key, { 'private-address': '10.0.0.1' });
    // Another process saw the unit leave and write nothing else: simulate settings left behind
    // by a previous stay, unknown to `store`'s cache.
    store.cache!.forget(cacheId(keyOf(store.model, refs.settings(id, 'mysql/0'))));
    await commit(other, [
      { op: 'put', ref: refs.settings(id, 'mysql/0'), value: { relationId: id, unit: 'mysql/0', settings: {}, version: 4 } },
    ]);
    await enterScope(store, 'mysql/0', key, { 'private-address': '10.0.0.2' });
    expect(await getItem(store, refs.settings(id, 'mysql/0'))).toMatchObject({ version: 5, settings: { 'private-address': '10.0.0.2' } });
  });
});
