// The snapshot cache: the items this process last read or committed, so that an operation can
// plan without reading first and pay one round trip (its transaction) instead of two.
//
// Why this is safe: every plan's transaction asserts each fact the plan relied on (commit.ts), so
// a plan made from a stale item cannot commit; DynamoDB cancels it, the cache forgets what it
// served and the operation reads again (run-operation.ts). A stale item costs one cancelled
// transaction, never a wrong write. Reads whose facts a plan does not assert say `fresh`.
import type { Change } from '../../domain/plan.js';
import { mergeChanges } from '../../domain/merge-changes.js';
import { itemAfterChange, type Known } from './item-after-change.js';
import { keyOf, type Key } from './keys.js';

/** Enough for the entities one API process or warm Lambda works on; the oldest go first. */
export const DEFAULT_CACHE_ENTRIES = 10_000;

export const cacheId = (key: Key) => `${key.pk}|${key.sk}`;

export class SnapshotCache {
  private readonly entries = new Map<string, Known>();

  constructor(private readonly maxEntries = DEFAULT_CACHE_ENTRIES) {}

  /** A copy of what is known of the item, or undefined when nothing is. */
  lookup(id: string): Known | undefined {
    const known = this.entries.get(id);
    if (!known) return undefined;
    // Least recently used goes first: a Map iterates in insertion order.
    this.entries.delete(id);
    this.entries.set(id, known);
    return { value: known.value && structuredClone(known.value) };
  }

  /** What a strongly consistent read just returned (undefined: the item does not exist). */
  remember(id: string, value: Record<string, unknown> | undefined) {
    this.entries.delete(id);
    this.entries.set(id, { value: value && structuredClone(value) });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(id: string) {
    this.entries.delete(id);
  }

  /** A transaction of `changes` committed: every item it wrote is now what the changes made it. */
  committed(model: string, changes: Change[]) {
    for (const change of mergeChanges(changes)) {
      const id = cacheId(keyOf(change.model ?? model, change.ref));
      const after = itemAfterChange(change.model ?? model, change, this.entries.get(id));
      if (after) this.remember(id, after.value);
      else this.forget(id);
    }
  }

  /** A transaction of `changes` was cancelled: what the cache believed of its items may be wrong. */
  cancelled(model: string, changes: Change[]) {
    for (const change of changes) this.forget(cacheId(keyOf(change.model ?? model, change.ref)));
  }

  get size() {
    return this.entries.size;
  }
}

/**
 * One speculative attempt of an operation: its reads are served from the cache where it knows
 * the item, and items the plan would create (so its transaction asserts they do not exist) may be
 * taken as absent without reading (ReadOptions.assumeAbsent).
 */
export class Speculation {
  /** Items served without reading: forgotten if the attempt's transaction is cancelled. */
  readonly served = new Set<string>();

  constructor(readonly cache: SnapshotCache) {}

  lookup(id: string, mayAssumeAbsent: boolean): Known | undefined {
    const cached = this.cache.lookup(id);
    // An absence is served only where the plan asserts it (it creates the item). Elsewhere a plan
    // may take a missing item as gone for good without asserting so, because nothing that exists
    // could refer to it (a unit's application): a stale absence would pass unnoticed, so read.
    const known = cached?.value !== undefined ? cached : mayAssumeAbsent ? { value: undefined } : undefined;
    if (known) this.served.add(id);
    return known;
  }
}
