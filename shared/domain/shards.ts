// How the listings that grow with one entity are spread over partitions. DynamoDB serves each
// partition up to 1,000 write units and 3,000 read units a second
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html),
// so the units of a 100,000-unit application cannot all be listed under one index key, nor the
// members of its relations' scopes under one table key.
//
// The layout grows with the entity. The parent records how many shards it has NOW
// (`Application.unitShards`, `Relation.scopeShards`): a new one has 1, so a small application or
// scope lists in one Query; the transaction whose unit count crosses SHARDS_GROW_ABOVE raises it
// to the full count, on the parent item it already writes (that count), so growing costs no
// write and no conflict of its own. It never shrinks, and a child is placed with the count its
// creating transaction read, which is never more than the count committed with it: every child
// lives in a shard below its parent's current count, and a reader reads shards 0..count-1 of the
// count it read off the parent. A unit keeps its shard in its own index key, so nothing recomputes
// it; a scope member is looked up where it may be (scopeShardsOfMember).
//
// An entity made before sharding has no marker and keeps its single legacy partition for good;
// one made while the layout was fixed has the full count already, which it keeps. That is what
// lets an older table work with no migration.
import type { Application, Relation } from './entities.js';

/**
 * Index partitions of a large application's units. A bulk add-unit creates 8 units a transaction
 * (UNITS_PER_TRANSACTION, plans/deploy.ts) against one write of the application item (its unit
 * count), so one unit partition took 8 writes for each of the item's: 16 shards take half a write
 * each, leaving the application item the hottest partition with room for an uneven hash
 * (bench/RESULTS.md, "Unit index partitions"), while a status page still merges them with 16
 * Queries side by side.
 */
export const UNIT_SHARDS = 16;

/**
 * Partitions of a large relation's scope members. Every enter-scope also writes the relation item
 * (its unit count), so once the members leave the relation's partition that item is the limit;
 * 4 shards keep each member partition well below it.
 */
export const SCOPE_SHARDS = 4;

/** How many shards a new application's units and a new relation's scope start in. */
export const FIRST_SHARDS = 1;

/**
 * The unit count above which a layout grows to its full count: 128, UNIT_SHARDS times the 8 units
 * of a bulk add-unit's transaction. Below it one partition cannot be hot: the whole application
 * is at most 16 such transactions, 128 index writes against the 1,000 a second a partition takes,
 * and a scope at most 128 enter-scopes, each of which also writes the relation item, the limit
 * anyway; its index keys (about 100 bytes each) fit one Query's 1 MB page many times over. Above
 * it, each of 16 unit shards would hold at least a transaction's worth of units, so the 16 Queries
 * of a listing cost less than one per 8 units listed; and a bulk add grows the layout within its
 * first 16 transactions, long before one partition sees a second's worth of writes.
 */
export const SHARDS_GROW_ABOVE = 128;

/**
 * The shard of a name: FNV-1a, so that the domain needs no crypto and consecutive unit numbers
 * spread evenly. Stable forever: the shard of an existing item is where it lives.
 */
export function shardOf(name: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * The shard count a layout must be raised to by a transaction that leaves its parent with
 * `countAfter` children; undefined: leave it as it is (legacy, already full, or still small).
 */
export function grownShards(current: number | undefined, countAfter: number, full: number): number | undefined {
  if (current === undefined || current >= full) return undefined;
  return countAfter > SHARDS_GROW_ABOVE ? full : undefined;
}

/** The unit count an application's layout must grow to, with `unitCountAfter` units (grownShards). */
export const unitShardsAfter = (application: Pick<Application, 'unitShards'>, unitCountAfter: number) =>
  grownShards(application.unitShards, unitCountAfter, UNIT_SHARDS);

/** The scope count a relation's layout must grow to, with `unitCountAfter` members (grownShards). */
export const scopeShardsAfter = (relation: Pick<Relation, 'scopeShards'>, unitCountAfter: number) =>
  grownShards(relation.scopeShards, unitCountAfter, SCOPE_SHARDS);

/** The shard a new unit is listed in, among its application's current unit partitions; undefined: the legacy single one. */
export const unitShardOf = (application: Pick<Application, 'unitShards'>, unit: string) =>
  application.unitShards ? shardOf(unit, application.unitShards) : undefined;

/** The shard a new member enters, among its relation's current scope partitions; undefined: the relation's own partition. */
export const scopeShardOf = (relation: Pick<Relation, 'scopeShards'>, unit: string) =>
  relation.scopeShards ? shardOf(unit, relation.scopeShards) : undefined;

/**
 * Every shard an existing member may live in: the one it got at each count the relation's layout
 * may have had (the first, then the current), newest first. A member keeps the shard it entered
 * in, and nothing else records it, so a reader of one member reads these keys together (one
 * request). Undefined in the list: the legacy partition.
 */
export function scopeShardsOfMember(relation: Pick<Relation, 'scopeShards'>, unit: string): (number | undefined)[] {
  if (!relation.scopeShards) return [undefined];
  const counts = [...new Set([relation.scopeShards, FIRST_SHARDS])].filter((c) => c <= relation.scopeShards!);
  return [...new Set(counts.map((c) => shardOf(unit, c)))];
}
