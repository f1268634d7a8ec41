// The machines section of a status page, in the order of their ids across the index's shards.
import type { Machine } from '../../../domain/entities.js';
import type { EntityRef } from '../../../domain/plan.js';
import { machineDoc } from '../../../domain/status.js';
import { collectionOf, collections } from '../../engine/keys.js';
import { collectionCursorAfter, listCollection } from '../../engine/reads.js';
import type { Position } from '../status-page-cursor.js';
import { bytes, countIn, fits, hasEntities, readEach, readPresenceOf, type Reader } from './page-reader.js';

/**
 * Machines are listed from their shards at once and merged in the order of their ids, so a table
 * printed as the pages come is in order: each shard keeps its own position, and a page takes only
 * ids no shard can still have a smaller one of.
 */
export async function machinesSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  const shards = collections.machineShards(store.model);
  // Per shard: after this entity (a listing cursor), from its start (''), or done (null).
  const state: (string | null)[] = position.shards ?? shards.map(() => '');
  const at = (): Position => ({ section: 'machines', shards: [...state] });
  const sortKey = (ref: EntityRef) => collectionOf(store.model, ref)?.sk ?? '';
  while (reader.budget.entities > 0) {
    const live = shards.flatMap((collection, shard) => (state[shard] === null ? [] : [{ collection, shard }]));
    if (!live.length) return undefined;
    const listings = await Promise.all(
      live.map(({ collection, shard }) =>
        reader.bounded(() =>
          listCollection(store, collection, { limit: reader.budget.entities, ...(state[shard] ? { cursor: state[shard] } : {}) }),
        ),
      ),
    );
    // Up to the smallest last id of the shards that have more: beyond it, one of them may hold a smaller id.
    const bounds = listings.flatMap((l) => (l.cursor ? [sortKey(l.items[l.items.length - 1]!)] : []));
    const bound = bounds.length ? bounds.sort()[0]! : undefined;
    const merged = listings
      .flatMap((listed, i) => listed.items.map((ref) => ({ ref, shard: live[i]!.shard })))
      .filter(({ ref }) => bound === undefined || sortKey(ref) <= bound)
      .sort((a, b) => (sortKey(a.ref) < sortKey(b.ref) ? -1 : 1))
      .slice(0, reader.budget.entities);
    const machines = await readEach<Machine>(
      reader,
      merged.map((m) => m.ref),
    );
    const lastSeen = await readPresenceOf(
      reader,
      machines.map((m) => m?.id),
    );
    const ctx = { presence: { ...reader.presence, lastSeen }, now: reader.now, charms: new Map(), leaders: {} };
    for (const [i, machine] of machines.entries()) {
      if (machine) {
        const doc = machineDoc(machine, ctx);
        if (!fits(reader, bytes(doc) + bytes(machine.id) + 2, hasEntities(page))) return at();
        (page.machines ??= {})[machine.id] = doc;
        if (reader.left) reader.left.machines = countIn(reader.left.machines, machine.id);
      }
      state[merged[i]!.shard] = collectionCursorAfter(store, merged[i]!.ref);
    }
    // A shard is done when its listing ended and all of it was taken.
    for (const [i, listed] of listings.entries()) {
      const shard = live[i]!.shard;
      const taken = merged.filter((m) => m.shard === shard).length;
      if (!listed.cursor && taken === listed.items.length) state[shard] = null;
    }
  }
  return at();
}
