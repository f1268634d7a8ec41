// The plans that add children grow their parent's layout in the write they already make (its unit
// count), and place each child with the count they read; leaving a scope removes the member where
// it was found (shared/domain/shards.ts).
import { describe, expect, it } from 'vitest';
import type { Model } from '#shared/domain/entities.js';
import type { Change } from '#shared/domain/plan.js';
import { planEnterScope } from '#shared/domain/plans/enter-scope.js';
import { planLeaveScope } from '#shared/domain/plans/leave-scope.js';
import { planNewUnits } from '#shared/domain/plans/new-units.js';
import { sequentialNumbers } from '#shared/domain/sequences.js';
import { SCOPE_SHARDS, shardOf, SHARDS_GROW_ABOVE, UNIT_SHARDS } from '#shared/domain/shards.js';
import { application, linked, NOW, relation, unit } from './relation-fixtures.js';

const model: Model = { name: 'm', uuid: 'u-1', life: 'alive', constraints: {}, defaultSeries: 'jammy', constraintsVersion: 0 };
const ADDRESS = { 'private-address': '10.0.0.1' };

const addUnits = (unitCount: number, unitShards: number | undefined, count: number) =>
  planNewUnits({
    model,
    application: application('wordpress', { unitCount, ...(unitShards !== undefined ? { unitShards } : {}) }),
    numbers: sequentialNumbers({ 'unit#wordpress': unitCount }),
    count,
    placements: [],
    pending: [],
    now: NOW,
  }).changes;
const update = (changes: Change[], kind: string) => changes.find((c) => c.op === 'update' && c.ref.kind === kind);
const created = (changes: Change[], kind: string) => changes.filter((c) => c.op === 'create' && c.ref.kind === kind);

describe('add-unit', () => {
  it('keeps a small application in one shard, and the transaction crossing the threshold grows it on the count it writes', () => {
    const small = addUnits(SHARDS_GROW_ABOVE - 8, 1, 8);
    expect(update(small, 'application')).toMatchObject({ add: { unitCount: 8 } });
    expect(update(small, 'application')).not.toHaveProperty('set');
    expect(created(small, 'unit').map((c) => (c.op === 'create' ? c.shard : -1))).toEqual(Array(8).fill(0));

    const crossing = addUnits(SHARDS_GROW_ABOVE - 4, 1, 8);
    expect(update(crossing, 'application')).toMatchObject({ add: { unitCount: 8 }, set: { unitShards: UNIT_SHARDS } });
    // Placed with the count read: shard 0, below the count committed with them.
    expect(created(crossing, 'unit').map((c) => (c.op === 'create' ? c.shard : -1))).toEqual(Array(8).fill(0));

    const grown = addUnits(SHARDS_GROW_ABOVE + 4, UNIT_SHARDS, 8);
    expect(update(grown, 'application')).not.toHaveProperty('set');
    for (const c of created(grown, 'unit'))
      if (c.op === 'create') expect(c.shard).toBe(shardOf((c.ref as { name: string }).name, UNIT_SHARDS));
  });

  it('never grows an application deployed before sharding', () => {
    const legacy = addUnits(SHARDS_GROW_ABOVE, undefined, 8);
    expect(update(legacy, 'application')).not.toHaveProperty('set');
    for (const c of created(legacy, 'unit')) expect(c).not.toHaveProperty('shard');
  });
});

describe('enter-scope', () => {
  const wp = application('wordpress');
  const mysql = application('mysql');
  it('grows the scope on the relation item when the entry crosses the threshold, and enters with the count read', () => {
    const at = (unitCount: number) =>
      planEnterScope(
        {
          unit: unit('wordpress/7'),
          relation: relation([wp, mysql], ['wordpress', 'mysql'], 4, { unitCount, scopeShards: 1 }),
          inScope: false,
        },
        ADDRESS,
        NOW,
      ).changes;
    expect(update(at(SHARDS_GROW_ABOVE - 1), 'relation')).not.toHaveProperty('set');
    const crossing = at(SHARDS_GROW_ABOVE);
    expect(update(crossing, 'relation')).toMatchObject({ add: { unitCount: 1 }, set: { scopeShards: SCOPE_SHARDS } });
    expect(created(crossing, 'scope')[0]!.ref).toEqual({ kind: 'scope', relation: expect.any(String), unit: 'wordpress/7', shard: 0 });
  });

  it("grows a subordinate application's units when the subordinate it creates crosses the threshold", () => {
    const logging = application('logging', { unitCount: SHARDS_GROW_ABOVE, unitShards: 1 });
    const dir = relation([wp, logging], ['wordpress', 'logging'], 5);
    const { changes } = planEnterScope(
      {
        unit: unit('wordpress/0', { machine: '3' }),
        relation: dir,
        inScope: false,
        subordinate: { application: linked([logging], [dir])[0]!, relations: [dir], numbers: sequentialNumbers({ 'unit#logging': 70 }) },
      },
      ADDRESS,
      NOW,
    );
    expect(update(changes, 'application')).toMatchObject({ add: { unitCount: 1 }, set: { unitShards: UNIT_SHARDS } });
    expect(created(changes, 'unit')).toMatchObject([{ ref: { kind: 'unit', name: 'logging/70' }, shard: 0 }]);
  });
});

describe('leave-scope', () => {
  it('removes the member where it was found, not where a new one would go', () => {
    const wp = application('wordpress', { unitCount: 1 });
    const mysql = application('mysql');
    const db = relation([wp, mysql], ['wordpress', 'mysql'], 4, { unitCount: 2, scopeShards: SCOPE_SHARDS });
    const name = ['wordpress/0', 'wordpress/1', 'wordpress/2'].find((n) => shardOf(n, SCOPE_SHARDS) !== 0)!;
    const foundIn = { kind: 'scope' as const, relation: db.key, unit: name, shard: 0 };
    const { changes } = planLeaveScope(
      { unit: unit(name, { scopes: [db.key] }), relation: db, inScope: true, member: foundIn, applications: linked([wp, mysql], [db]) },
      name,
      NOW,
    );
    expect(changes[0]).toEqual({ op: 'remove', ref: foundIn });
  });
});
