// The model's revision as readers see it (moved by shared/state/operations/model-revision.ts): one
// strongly consistent GetItem, around the snapshot cache (no plan reads it).
import { refs } from '../../domain/plan.js';
import { getItem } from '../engine/reads.js';
import { withoutCache, type Store } from '../engine/store.js';

export interface ModelRevisionItem {
  revision: number;
  expiresAt: number;
}

/** The model's revision; 0 for a model whose revision never moved. Compare for equality only. */
export async function readModelRevision(store: Store): Promise<number> {
  return (await getItem<ModelRevisionItem>(withoutCache(store), refs.modelRevision()))?.revision ?? 0;
}
