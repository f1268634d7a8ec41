// What a unit sees of the other side of a relation across models (Relation.crossModel,
// shared/domain/plans/cross-model-relation.ts): the other model's relation record, its scope and
// its settings, read straight from that model's items (every model is in one table), under the
// names this model gives them. The caller has already checked that the unit is in `relation`.
import { unitThere } from '../../domain/cross-model.js';
import type { Relation } from '../../domain/entities.js';
import { getRelation } from '../engine/reads.js';
import { storeForModel, type Store } from '../engine/store.js';

/** The other model's store and relation record; no relation when it has been removed since. */
export async function otherSide(store: Store, relation: Relation): Promise<{ store: Store; relation?: Relation } | undefined> {
  const side = relation.crossModel;
  if (!side) return undefined;
  const there = storeForModel(store, side.model);
  const other = await getRelation(there, side.relation);
  // The key is reused only after removal: the id tells the record this relation was made with.
  return other?.id === side.relationId ? { store: there, relation: other } : { store: there };
}

/**
 * Where a unit's settings in `relation` are: this model's, or, for a unit of the other side (named
 * by the alias), the other model's under its own name and relation id.
 */
export function settingsLocation(store: Store, relation: Relation, unit: string): { store: Store; relationId: number; unit: string } {
  const side = relation.crossModel;
  const there = side && unitThere(side, unit);
  if (!side || !there) return { store, relationId: relation.id, unit };
  return { store: storeForModel(store, side.model), relationId: side.relationId, unit: there };
}

/** Where an application's bag in `relation` is: the other model's for the alias. */
export function appSettingsLocation(
  store: Store,
  relation: Relation,
  application: string,
): { store: Store; relationId: number; application: string } {
  const side = relation.crossModel;
  if (!side || application !== side.alias) return { store, relationId: relation.id, application };
  return { store: storeForModel(store, side.model), relationId: side.relationId, application: side.application };
}
