// Reads about relations that are more than one item. The relations of a model are bounded by
// the number of applications (never by units), so listing them all is fine.
import type { Application, Relation } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { collections } from '../engine/keys.js';
import { getApplication, getMany, listAll, type ReadOptions } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

/** Every relation of the model, in key order. */
export async function listRelations(store: Store): Promise<Relation[]> {
  return getMany<Relation>(store, await listAll(store, collections.relations(store.model)));
}

/** Relations are keyed by their key; ids (`remove-relation 3`) are found by listing. */
export async function getRelationById(store: Store, id: number): Promise<Relation | undefined> {
  return (await listRelations(store)).find((r) => r.id === id);
}

/** The relations an application is in (its `relations` set), of any life. */
export async function listRelationsOfApplication(store: Store, application: string): Promise<Relation[]> {
  const app = await getApplication(store, application);
  if (!app) throw notFound(`application "${application}" not found`);
  return relationsOf(store, [app]);
}

/** The relations of several applications, each once. */
export async function relationsOf(store: Store, applications: Application[], options: ReadOptions = {}): Promise<Relation[]> {
  const keys = [...new Set(applications.flatMap((a) => a.relations))];
  return getMany<Relation>(store, keys.map(refs.relation), options);
}

/** How errors name a relation by id: its key while it exists (settings outlive it). */
export async function relationLabel(store: Store, id: number): Promise<string> {
  return (await getRelationById(store, id))?.key ?? String(id);
}
