// What is left in a model, a few of each: what its removal waits for (shared/state/operations/remove-model.ts)
// and what `drover stuck` says holds a Dying model. Read from the byCollection index, a page of
// `limit` per collection, so it costs the same in a model of any size.
import type { ModelContents } from '../../domain/plans/remove-model.js';
import type { EntityRef } from '../../domain/plan.js';
import { collections } from '../engine/keys.js';
import { listCollection } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

const nameOf = (ref: EntityRef) =>
  ref.kind === 'machine' ? ref.id : ref.kind === 'relation' ? ref.key : ref.kind === 'cleanup' ? ref.id : 'name' in ref ? ref.name : '';

/** `except`: a cleanup document not to count (the one asking). */
export async function readModelContents(store: Store, options: { limit?: number; except?: string } = {}): Promise<ModelContents> {
  const limit = options.limit ?? 5;
  const first = async (collection: string) => (await listCollection(store, collection, { limit })).items.map(nameOf);
  const [applications, relations, cleanups, ...shards] = await Promise.all([
    first(collections.applications(store.model)),
    first(collections.relations(store.model)),
    first(collections.cleanups(store.model)),
    ...collections.machineShards(store.model).map(first),
  ]);
  return {
    applications: applications!,
    machines: shards.flat(),
    relations: relations!,
    cleanups: cleanups!.filter((id) => id !== options.except),
  };
}
