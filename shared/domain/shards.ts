// How the listings that grow with one entity are spread over partitions. DynamoDB serves each
// partition up to 1,000 write units and 3,000 read units a second
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html),
// so the units of a 100,000-unit application cannot all be listed under one index key, nor the
// members of its relations' scopes under one table key.
//
// The layout is recorded on the parent when it is created (`Application.unitShards`,
// `Relation.scopeShards`) and never changes: every reader and writer reads it off the parent, so
// none has to look in two places. An entity made before sharding has no marker and keeps its
// single legacy partition for good; that is what lets an older table work with no migration.
import type { Application, Relation } from './entities.js';

/**
 * Index partitions of a new application's units. A bulk add-unit creates 8 units a transaction
 * (UNITS_PER_TRANSACTION, plans/deploy.ts) against one write of the application item (its unit
 * count), so one unit partition took 8 writes for each of the item's: 16 shards take half a write
 * each, leaving the application item the hottest partition with room for an uneven hash
 * (bench/RESULTS.md, "Unit index partitions"), while a status page still merges them with 16
 * Queries side by side.
 */
export const UNIT_SHARDS = 16;

/**
 * Partitions of a new relation's scope members. Every enter-scope also writes the relation item
 * (its unit count), so once the members leave the relation's partition that item is the limit;
 * 4 shards keep each member partition well below it, and a small scope lists in 4 queries.
 */
export const SCOPE_SHARDS = 4;

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

/** The unit's shard among its application's unit partitions; undefined: the legacy single one. */
export const unitShardOf = (application: Pick<Application, 'unitShards'>, unit: string) =>
  application.unitShards ? shardOf(unit, application.unitShards) : undefined;

/** The member's shard among its relation's scope partitions; undefined: the relation's own partition. */
export const scopeShardOf = (relation: Pick<Relation, 'scopeShards'>, unit: string) =>
  relation.scopeShards ? shardOf(unit, relation.scopeShards) : undefined;
