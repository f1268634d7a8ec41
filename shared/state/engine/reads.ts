// Reads for planning. All strongly consistent: a plan must start from the latest committed
// state, or its conditions would fail needlessly and the operation would retry.
import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EntityRef } from '../../domain/plan.js';
import type { UnitCharmState } from '../../domain/plans/unit-state.js';
import type { Application, Cleanup, Machine, Model, Relation, RelationSettings, Unit } from '../../domain/entities.js';
import { invalidArgument } from '../../domain/errors.js';
import { fromItem } from './codec.js';
import { ATTR, collectionOf, INDEX, keyOf, refFromKey, type Key } from './keys.js';
import { cacheId } from './snapshot-cache.js';
import type { Store } from './store.js';

/** How a speculative attempt (run-operation.ts) may answer a read without reading. */
export interface ReadOptions {
  /** The plan does not assert what it reads here: read it, whatever the cache knows. */
  fresh?: boolean;
  /** Items the plan would create, so its transaction asserts they do not exist: absent unless known. */
  assumeAbsent?: EntityRef[];
}

/** What the current speculative attempt (if any) knows of the item without reading it. */
function known(store: Store, ref: EntityRef, key: Key, options: ReadOptions) {
  if (!store.speculation || options.fresh) return undefined;
  const mayAssumeAbsent = options.assumeAbsent?.some((r) => JSON.stringify(r) === JSON.stringify(ref)) ?? false;
  return store.speculation.lookup(cacheId(key), mayAssumeAbsent);
}

export async function getItem<T>(store: Store, ref: EntityRef, options: ReadOptions = {}): Promise<T | undefined> {
  const Key = keyOf(store.model, ref);
  const cached = known(store, ref, Key, options);
  if (cached) return cached.value as T | undefined;
  const { Item } = await store.doc.send(new GetCommand({ TableName: store.table, Key, ConsistentRead: true }));
  const value = Item ? fromItem<Record<string, unknown>>(Item) : undefined;
  store.cache?.remember(cacheId(Key), value);
  return value as T | undefined;
}

export const getModel = (store: Store) => getItem<Model>(store, { kind: 'model' });
export const getApplication = (store: Store, name: string) => getItem<Application>(store, { kind: 'application', name });
export const getUnit = (store: Store, name: string) => getItem<Unit>(store, { kind: 'unit', name });
export const getMachine = (store: Store, id: string) => getItem<Machine>(store, { kind: 'machine', id });
export const getRelation = (store: Store, key: string) => getItem<Relation>(store, { kind: 'relation', key });
export const getCleanup = (store: Store, id: string) => getItem<Cleanup>(store, { kind: 'cleanup', id });
export const getUnitState = (store: Store, unit: string) => getItem<UnitCharmState>(store, { kind: 'unitState', unit });
export const getSettings = (store: Store, relationId: number, unit: string) =>
  getItem<RelationSettings>(store, { kind: 'settings', relationId, unit });

/** A sequence's item: the numbers taken so far. */
export interface SequenceItem {
  value: number;
}

/** Numbers taken so far from a sequence read with getBatch (0 when none was ever taken). */
export const sequenceValue = (item: SequenceItem | undefined) => item?.value ?? 0;

export async function getSequence(store: Store, name: string): Promise<number> {
  return sequenceValue(await getItem<SequenceItem>(store, { kind: 'sequence', name }));
}

/** Gets many items by reference, in batches of 100, keeping the order of `refs`; absent items are skipped. */
export async function getMany<T>(store: Store, refs: EntityRef[], options: ReadOptions = {}): Promise<T[]> {
  return (await getEach<T>(store, refs, options)).filter((x): x is NonNullable<typeof x> => x !== undefined);
}

/** BatchGetItems one read keeps in flight: parallel, yet well under any table's capacity per request burst. */
const BATCH_GETS_AT_ONCE = 4;

/**
 * BatchGetItems of `keys`, 100 keys each and a few at once, so a large read waits for the slowest
 * of a few round trips instead of their sum; what DynamoDB leaves unprocessed is asked again.
 * `found` hears of every item; `done` of each batch once all its keys were answered.
 */
async function batchGetAll(
  store: Store,
  keys: Key[],
  on: {
    found: (item: Key & Record<string, unknown>) => void;
    done?: (batch: Key[]) => void;
    projection?: { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> };
  },
): Promise<void> {
  const batches = Array.from({ length: Math.ceil(keys.length / 100) }, (_, i) => keys.slice(i * 100, i * 100 + 100));
  const readBatch = async (batch: Key[]) => {
    let pending: Key[] = batch;
    while (pending.length) {
      const out = await store.doc.send(
        new BatchGetCommand({ RequestItems: { [store.table]: { Keys: pending, ConsistentRead: true, ...on.projection } } }),
      );
      for (const item of out.Responses?.[store.table] ?? []) on.found(item as Key & Record<string, unknown>);
      pending = (out.UnprocessedKeys?.[store.table]?.Keys ?? []) as Key[];
    }
    on.done?.(batch);
  };
  let next = 0;
  const worker = async () => {
    while (next < batches.length) await readBatch(batches[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_GETS_AT_ONCE, batches.length) }, worker));
}

/** Like getMany, but aligned with `refs`: undefined where an item does not exist (any more). */
export async function getEach<T>(store: Store, refs: EntityRef[], options: ReadOptions = {}): Promise<(T | undefined)[]> {
  const keys = refs.map((r) => keyOf(store.model, r));
  const found = new Map<string, T | undefined>();
  const unknown: Key[] = [];
  for (const [i, key] of keys.entries()) {
    const cached = known(store, refs[i]!, key, options);
    if (cached) found.set(cacheId(key), cached.value as T | undefined);
    else unknown.push(key);
  }
  await batchGetAll(store, unknown, {
    found: (item) => found.set(cacheId(item), fromItem<T>(item)),
    done: (batch) => {
      for (const key of batch) store.cache?.remember(cacheId(key), found.get(cacheId(key)) as Record<string, unknown> | undefined);
    },
  });
  return keys.map((k) => found.get(cacheId(k)));
}

/**
 * Reads items of different kinds in one BatchGetItem, strongly consistent like getItem; undefined
 * where an item does not exist. One request instead of one per item: a small read costs mostly
 * its request, and next to a small transaction that is not little (bench/RESULTS.md).
 * The references must be distinct (BatchGetItem refuses duplicate keys).
 */
export async function getBatch<T extends unknown[]>(
  store: Store,
  refs: { [K in keyof T]: EntityRef },
  options: ReadOptions = {},
): Promise<{ [K in keyof T]: T[K] | undefined }> {
  return (await getEach<unknown>(store, refs, options)) as { [K in keyof T]: T[K] | undefined };
}

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. Absent on the last page. */
  cursor?: string;
}

export const encodeCursor = (key?: Record<string, unknown>) => (key ? Buffer.from(JSON.stringify(key)).toString('base64url') : undefined);
/**
 * The key a cursor was made from. Cursors travel through clients (an agent's relation-units
 * pages), so one may come back garbled or made up: anything that is not a key this query could
 * have ended a page at is refused as bad input, before DynamoDB sees it.
 */
export function decodeCursor(
  cursor: string | undefined,
  belongs: (key: Record<string, string>) => boolean,
): Record<string, string> | undefined {
  if (!cursor) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    key = undefined;
  }
  const isKey = key !== null && typeof key === 'object' && !Array.isArray(key) && Object.values(key).every((v) => typeof v === 'string');
  if (!isKey || !belongs(key as Record<string, string>))
    throw invalidArgument('invalid cursor: pass back the cursor of the previous page unchanged, or none to start from the first page');
  return key as Record<string, string>;
}

export const hasExactly = (key: Record<string, string>, names: string[]) =>
  Object.keys(key).length === names.length && names.every((n) => Object.hasOwn(key, n));

/**
 * Lists the references of one collection of the byCollection index, a page at a time, in the
 * index's order (or the reverse: `lastFirst`).
 */
export async function listCollection(
  store: Store,
  collection: string,
  options: { limit?: number; cursor?: string; lastFirst?: boolean } = {},
): Promise<Page<EntityRef>> {
  const out = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      IndexName: INDEX.byCollection,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.collectionPk },
      ExpressionAttributeValues: { ':pk': collection },
      ...(options.lastFirst ? { ScanIndexForward: false } : {}),
      Limit: options.limit,
      ExclusiveStartKey: decodeCursor(
        options.cursor,
        (key) => hasExactly(key, [ATTR.pk, ATTR.sk, ATTR.collectionPk, ATTR.collectionSk]) && key[ATTR.collectionPk] === collection,
      ),
    }),
  );
  const items = (out.Items ?? []).map((i) => refFromKey(store.model, i as Key)).filter((r): r is EntityRef => r !== undefined);
  const cursor = encodeCursor(out.LastEvaluatedKey);
  return cursor ? { items, cursor } : { items };
}

/**
 * The cursor of a listing that stops right after this entity, as if a page had ended there: a
 * reader that keeps only part of a page (to bound its answer) goes on from the last entity it kept.
 */
export function collectionCursorAfter(store: Store, ref: EntityRef): string {
  const collection = collectionOf(store.model, ref);
  if (!collection) throw new Error(`${ref.kind} is not listed in a collection`);
  return encodeCursor({ ...keyOf(store.model, ref), [ATTR.collectionPk]: collection.pk, [ATTR.collectionSk]: collection.sk })!;
}

/**
 * Some fields of many items (BatchGetItem with a projection), in batches of 100 keys, aligned with
 * `refs` (undefined where an item does not exist). Not through the snapshot cache: a partial item
 * is no item a plan may start from.
 */
export async function getProjected<T>(store: Store, refs: EntityRef[], fields: readonly string[]): Promise<(T | undefined)[]> {
  const keys = refs.map((r) => keyOf(store.model, r));
  const names = Object.fromEntries([ATTR.pk, ATTR.sk, ATTR.kind, ...fields].map((f, i) => [`#f${i}`, f]));
  const found = new Map<string, T>();
  await batchGetAll(store, keys, {
    found: (item) => found.set(cacheId(item), fromItem<T>(item)),
    projection: { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names },
  });
  return keys.map((k) => found.get(cacheId(k)));
}

/** Every reference in a collection (for collections bounded by the number of applications). */
export async function listAll(store: Store, collection: string): Promise<EntityRef[]> {
  const all: EntityRef[] = [];
  let cursor: string | undefined;
  do {
    const page = await listCollection(store, collection, cursor ? { cursor } : {});
    all.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return all;
}
