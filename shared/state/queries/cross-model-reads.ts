// What a unit sees of the other side of a relation across models (Relation.crossModel,
// shared/domain/plans/cross-model-relation.ts): the other model's relation record, its scope and
// its settings, read straight from that model's items (every model is in one table), under the
// names this model gives them. The caller has already checked that the unit is in `relation`.
import { unitThere, type Offer, type RemoteApplication } from '../../domain/cross-model.js';
import type { Application, Relation } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import type { CrossModelFacts } from '../../domain/plans/cross-model-relation.js';
import type { CrossModelReferences } from '../../domain/plans/references.js';
import { getItem, getMany, getRelation } from '../engine/reads.js';
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

/** What refers to a model's record of a relation across models: its SAAS or its offer (references.ts). */
async function referencesOf(store: Store, relation: Relation): Promise<CrossModelReferences> {
  const side = relation.crossModel!;
  if (side.offering) {
    const offer = await getItem<Offer>(store, refs.offer(store.model, side.offer));
    return { modelKey: store.model, ...(offer ? { offer } : {}) };
  }
  const saas = await getItem<RemoteApplication>(store, refs.remoteApplication(side.alias));
  const offer = saas ? await getItem<Offer>(store, refs.offer(saas.offerModelKey, saas.offer)) : undefined;
  return { modelKey: store.model, ...(saas ? { saas } : {}), ...(offer ? { offer } : {}) };
}

/** Both sides' facts for destroying or removing `relation` (shared/domain/plans/cross-model-relation.ts); none for a local one. */
export async function crossModelFacts(store: Store, relation: Relation): Promise<CrossModelFacts | undefined> {
  if (!relation.crossModel) return undefined;
  const [references, other] = await Promise.all([referencesOf(store, relation), otherSide(store, relation)]);
  if (!other?.relation) return { references };
  const names = [...new Set(other.relation.endpoints.map((ep) => ep.application))].filter((a) => a !== other.relation!.crossModel?.alias);
  const [applications, otherReferences] = await Promise.all([
    getMany<Application>(other.store, names.map(refs.application)),
    referencesOf(other.store, other.relation),
  ]);
  return { references, other: { relation: other.relation, applications, references: otherReferences } };
}

/** The facts of each relation across models among `relations`, by key. */
export async function crossModelFactsOf(store: Store, relations: Relation[]): Promise<Map<string, CrossModelFacts>> {
  const found = await Promise.all(
    relations.filter((r) => r.crossModel).map(async (r) => [r.key, await crossModelFacts(store, r)] as const),
  );
  return new Map(found.filter((f): f is [string, CrossModelFacts] => f[1] !== undefined));
}
