// An application's units, listed from the index partitions its layout names (Application.unitShards,
// shared/domain/shards.ts), in the order of their numbers. Every reader of an application's units
// comes through here, so none needs to know whether the application is sharded.
//
// An application deployed before sharding is one partition, listed exactly as it always was, with
// the same cursors: a cleanup document or a client holding one of those from before an upgrade
// goes on where it was. A sharded application's listing queries the partitions its item counts
// now side by side (one while it is small) and merges them by unit number; its cursor is the
// number of the last unit sent, and each shard goes on after that number. Unit numbers are never
// reused and only grow, so a unit added while a client pages is sent once (it is ahead) and none
// is ever sent twice; a later page reads the application again, and so every shard it has grown
// to since. A unit is in a shard below the count committed with it, so a listing misses only
// units committed after it read the application, as it would with any layout.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Application } from '../../domain/entities.js';
import { refs, type EntityRef } from '../../domain/plan.js';
import { ATTR, collections, INDEX, refFromKey, unitSortKey, type Key } from './keys.js';
import { collectionCursorAfter, decodeCursor, encodeCursor, hasExactly, listAll, listCollection, type Page } from './reads.js';
import { shardPages } from './shard-pages.js';
import type { Store } from './store.js';

export type UnitLayout = Pick<Application, 'name' | 'unitShards'>;

/** How a caller runs each Query (status pages bound their reads in flight). */
export type RunRead = <T>(read: () => Promise<T>) => Promise<T>;

export interface UnitListOptions {
  limit?: number;
  cursor?: string;
  run?: RunRead;
}

/** A page when the caller names no limit: what a listing of one partition gives (its 1 MB is ~10,000 keys). */
const DEFAULT_LIMIT = 1000;

const AFTER = 'after';

/** An application's units from the cursor on, in number order, a page at a time. */
export async function listUnits(store: Store, application: UnitLayout, options: UnitListOptions = {}): Promise<Page<EntityRef>> {
  const partitions = collections.unitPartitions(store.model, application);
  const run: RunRead = options.run ?? ((read) => read());
  if (!application.unitShards) {
    const { limit, cursor } = options;
    return run(() => listCollection(store, partitions[0]!, { ...(limit !== undefined ? { limit } : {}), ...(cursor ? { cursor } : {}) }));
  }
  return listMerged(store, partitions, options.limit ?? DEFAULT_LIMIT, afterOf(options.cursor), run);
}

/** The cursor of a listing that stops right after `unit`, as if a page had ended there. */
export function unitCursorAfter(store: Store, application: UnitLayout, unit: string): string {
  if (!application.unitShards) return collectionCursorAfter(store, refs.unit(unit));
  return encodeCursor({ [AFTER]: unitSortKey(unit) })!;
}

/** Every unit of an application, in number order (for callers bounded by the application's size anyway). */
export async function listAllUnits(store: Store, application: UnitLayout): Promise<EntityRef[]> {
  const partitions = collections.unitPartitions(store.model, application);
  const listed = (await Promise.all(partitions.map((p) => listAll(store, p)))).flat();
  return partitions.length === 1 ? listed : listed.sort((a, b) => compare(sortKeyOf(a), sortKeyOf(b)));
}

/** Every unit of an application in pages of `pageSize`, in no order across its shards (shard-pages.ts). */
export const unitPages = (store: Store, application: UnitLayout, pageSize: number): AsyncGenerator<EntityRef[]> =>
  shardPages(collections.unitPartitions(store.model, application), pageSize, (partition, limit, cursor) =>
    listCollection(store, partition, { limit, ...(cursor ? { cursor } : {}) }),
  );

function afterOf(cursor: string | undefined): string | undefined {
  const key = decodeCursor(cursor, (k) => hasExactly(k, [AFTER]) && /^\d{10}$/.test(k[AFTER]!));
  return key?.[AFTER];
}

const sortKeyOf = (ref: EntityRef) => (ref.kind === 'unit' ? unitSortKey(ref.name) : '');
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface ShardPage {
  refs: EntityRef[];
  /** The shard may hold more after its last ref. */
  more: boolean;
}

/** One shard's units after `after`, up to `limit`. */
async function queryShard(store: Store, partition: string, after: string | undefined, limit: number): Promise<ShardPage> {
  const out = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      IndexName: INDEX.byCollection,
      KeyConditionExpression: after === undefined ? '#pk = :pk' : '#pk = :pk AND #sk > :after',
      ExpressionAttributeNames: { '#pk': ATTR.collectionPk, ...(after === undefined ? {} : { '#sk': ATTR.collectionSk }) },
      ExpressionAttributeValues: { ':pk': partition, ...(after === undefined ? {} : { ':after': after }) },
      Limit: limit,
    }),
  );
  const found = (out.Items ?? []).map((i) => refFromKey(store.model, i as Key)).filter((r): r is EntityRef => r !== undefined);
  return { refs: found, more: out.LastEvaluatedKey !== undefined };
}

/**
 * Up to `limit` units after `after` across the shards, in number order. Each round asks every
 * shard not yet exhausted for a little more than its share (units spread evenly by hash) and
 * takes them up to the smallest last number of the shards that have more: beyond it, one of
 * those may still hold a smaller number. Rounds go on until the page is full or every shard is done.
 */
async function listMerged(
  store: Store,
  partitions: string[],
  limit: number,
  after: string | undefined,
  run: RunRead,
): Promise<Page<EntityRef>> {
  const items: EntityRef[] = [];
  const exhausted = new Set<number>();
  while (items.length < limit && exhausted.size < partitions.length) {
    const need = limit - items.length;
    const share = Math.ceil((need * 1.25) / partitions.length) + 1;
    const live = partitions.flatMap((_, i) => (exhausted.has(i) ? [] : [i]));
    const pages = await Promise.all(live.map((i) => run(() => queryShard(store, partitions[i]!, after, share))));
    const bounds = pages.flatMap((p) => (p.more && p.refs.length ? [sortKeyOf(p.refs[p.refs.length - 1]!)] : []));
    const bound = bounds.length ? bounds.sort()[0] : undefined;
    const taken = pages
      .flatMap((p) => p.refs)
      .filter((r) => bound === undefined || sortKeyOf(r) <= bound)
      .sort((a, b) => compare(sortKeyOf(a), sortKeyOf(b)))
      .slice(0, need);
    items.push(...taken);
    if (taken.length) after = sortKeyOf(taken[taken.length - 1]!);
    // A shard is done once it has nothing more and all it gave is taken.
    for (const [j, page] of pages.entries()) {
      const last = page.refs[page.refs.length - 1];
      if (!page.more && (!last || (after !== undefined && sortKeyOf(last) <= after))) exhausted.add(live[j]!);
    }
  }
  const done = exhausted.size === partitions.length;
  return done || after === undefined ? { items } : { items, cursor: encodeCursor({ [AFTER]: after })! };
}
