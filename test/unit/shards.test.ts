// The growing shard layout (shared/domain/shards.ts): a small parent lists its children from one
// partition; the transaction that takes it past SHARDS_GROW_ABOVE raises its count to the full
// one, once; a member is looked up wherever it may have entered.
import { describe, expect, it } from 'vitest';
import { scopeMemberRefs, refs } from '#shared/domain/plan.js';
import {
  FIRST_SHARDS,
  grownShards,
  SCOPE_SHARDS,
  scopeShardsAfter,
  scopeShardsOfMember,
  shardOf,
  SHARDS_GROW_ABOVE,
  UNIT_SHARDS,
  unitShardOf,
  unitShardsAfter,
} from '#shared/domain/shards.js';

describe('grownShards', () => {
  it('leaves a small layout in its first shard up to the threshold, and raises it to the full count past it', () => {
    expect(FIRST_SHARDS).toBe(1);
    expect(grownShards(FIRST_SHARDS, 1, UNIT_SHARDS)).toBeUndefined();
    expect(grownShards(FIRST_SHARDS, SHARDS_GROW_ABOVE, UNIT_SHARDS)).toBeUndefined();
    expect(grownShards(FIRST_SHARDS, SHARDS_GROW_ABOVE + 1, UNIT_SHARDS)).toBe(UNIT_SHARDS);
    expect(unitShardsAfter({ unitShards: 1 }, SHARDS_GROW_ABOVE + 8)).toBe(UNIT_SHARDS);
    expect(scopeShardsAfter({ scopeShards: 1 }, SHARDS_GROW_ABOVE + 1)).toBe(SCOPE_SHARDS);
  });

  it('never changes a full layout (one made while the layout was fixed included), nor a legacy one, nor shrinks', () => {
    expect(unitShardsAfter({ unitShards: UNIT_SHARDS }, 100_000)).toBeUndefined();
    expect(unitShardsAfter({ unitShards: UNIT_SHARDS }, 1)).toBeUndefined();
    expect(scopeShardsAfter({ scopeShards: SCOPE_SHARDS }, 1)).toBeUndefined();
    expect(unitShardsAfter({}, 100_000)).toBeUndefined();
    expect(scopeShardsAfter({}, 100_000)).toBeUndefined();
  });
});

describe('where a child goes', () => {
  it('puts every unit of a small application in shard 0, and a grown one spreads them below its count', () => {
    const names = Array.from({ length: 200 }, (_, i) => `web/${i}`);
    expect(new Set(names.map((n) => unitShardOf({ unitShards: 1 }, n)))).toEqual(new Set([0]));
    const spread = names.map((n) => unitShardOf({ unitShards: UNIT_SHARDS }, n)!);
    expect(new Set(spread).size).toBe(UNIT_SHARDS);
    expect(Math.max(...spread)).toBeLessThan(UNIT_SHARDS);
    expect(unitShardOf({}, 'web/0')).toBeUndefined();
  });

  it('looks a member up in its shard at the current count and in the first one, each key once', () => {
    const names = Array.from({ length: 40 }, (_, i) => `web/${i}`);
    for (const unit of names) {
      expect(scopeShardsOfMember({ scopeShards: 1 }, unit)).toEqual([0]);
      const grown = scopeShardsOfMember({ scopeShards: SCOPE_SHARDS }, unit);
      const now = shardOf(unit, SCOPE_SHARDS);
      expect(grown).toEqual(now === 0 ? [0] : [now, 0]);
    }
    expect(scopeShardsOfMember({}, 'web/0')).toEqual([undefined]);
    // The first key is where a new member enters now.
    const relation = { key: 'web:db db:server', scopeShards: SCOPE_SHARDS };
    const unit = names.find((n) => shardOf(n, SCOPE_SHARDS) !== 0)!;
    expect(scopeMemberRefs(relation, unit)[0]).toEqual(refs.scope(relation, unit));
    expect(scopeMemberRefs(relation, unit)[1]).toEqual({ kind: 'scope', relation: relation.key, unit, shard: 0 });
    expect(scopeMemberRefs({ key: relation.key }, unit)).toEqual([{ kind: 'scope', relation: relation.key, unit }]);
  });
});
