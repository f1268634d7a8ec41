// The members of a relation's scope, listed from the partitions its layout names
// (Relation.scopeShards, shared/domain/shards.ts). Every reader of a scope comes through here.
//
// A relation added before sharding keeps its members in its own partition, listed exactly as they
// always were, with the same cursors (a cleanup document may hold one from before an upgrade). A
// sharded scope is listed shard by shard, as many as the relation item counts now, each in its
// sort order; its cursor names the shard and the last key read there. A member lives in one shard
// for good (the one it entered), below the count committed with it, so none is sent twice and a
// listing misses only members that entered after it read the relation; the scope's readers need
// no order across shards.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Relation, ScopeMember } from '../../domain/entities.js';
import { fromItem } from './codec.js';
import { ATTR, SCOPE_SK_PREFIX, scopePartitions } from './keys.js';
import { decodeCursor, encodeCursor, hasExactly, type Page } from './reads.js';
import { shardPages } from './shard-pages.js';
import type { Store } from './store.js';

export type ScopeLayout = Pick<Relation, 'key' | 'scopeShards'>;

const SHARD = 'shard';

/** The units in a relation's scope, a page at a time (a page may end early at a shard's end). */
export async function listScope(
  store: Store,
  relation: ScopeLayout,
  options: { limit?: number; cursor?: string } = {},
): Promise<Page<ScopeMember>> {
  const partitions = scopePartitions(store.model, relation);
  if (!relation.scopeShards) return queryPartition(store, partitions[0]!, options.limit, options.cursor);
  const at = shardCursor(options.cursor, partitions);
  const items: ScopeMember[] = [];
  let shard = at.shard;
  let key = at.key;
  while (shard < partitions.length) {
    const limit = options.limit === undefined ? undefined : options.limit - items.length;
    const page = await queryPartition(store, partitions[shard]!, limit, key);
    items.push(...page.items);
    if (page.cursor) key = page.cursor;
    else [shard, key] = [shard + 1, undefined];
    if (options.limit !== undefined && items.length >= options.limit) break;
  }
  if (shard >= partitions.length) return { items };
  return { items, cursor: encodeCursor({ [SHARD]: String(shard), ...(key ? { key } : {}) })! };
}

/** Every member of a relation's scope in pages of `pageSize`, in no order across its shards (shard-pages.ts). */
export const scopePages = (store: Store, relation: ScopeLayout, pageSize: number): AsyncGenerator<ScopeMember[]> =>
  shardPages(scopePartitions(store.model, relation), pageSize, (partition, limit, cursor) =>
    queryPartition(store, partition, limit, cursor),
  );

/** Where a sharded listing goes on: the shard, and the cursor within it (a partition's own). */
function shardCursor(cursor: string | undefined, partitions: string[]): { shard: number; key?: string } {
  const at = decodeCursor(
    cursor,
    (k) => (hasExactly(k, [SHARD]) || hasExactly(k, [SHARD, 'key'])) && /^\d+$/.test(k[SHARD]!) && Number(k[SHARD]) < partitions.length,
  );
  if (!at) return { shard: 0 };
  return { shard: Number(at[SHARD]), ...(at.key ? { key: at.key } : {}) };
}

/** One partition's members, with a cursor of that partition (checked to belong to it). */
async function queryPartition(store: Store, pk: string, limit: number | undefined, cursor: string | undefined): Promise<Page<ScopeMember>> {
  const out = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
      ExpressionAttributeValues: { ':pk': pk, ':prefix': SCOPE_SK_PREFIX },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(
        cursor,
        (key) => hasExactly(key, [ATTR.pk, ATTR.sk]) && key[ATTR.pk] === pk && key[ATTR.sk]!.startsWith(SCOPE_SK_PREFIX),
      ),
    }),
  );
  const items = (out.Items ?? []).map((i) => fromItem<ScopeMember>(i));
  const next = encodeCursor(out.LastEvaluatedKey);
  return next ? { items, cursor: next } : { items };
}
