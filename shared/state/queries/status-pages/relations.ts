// The relations section of a status page; a Dying relation names a few of the units still in its scope.
import type { Relation } from '../../../domain/entities.js';
import { relationDoc } from '../../../domain/status.js';
import { collections } from '../../engine/keys.js';
import { collectionCursorAfter, listCollection } from '../../engine/reads.js';
import { listScope } from '../../engine/scope-listing.js';
import type { Position } from '../status-page-cursor.js';
import { bytes, fits, hasEntities, readEach, type Reader } from './page-reader.js';

export async function relationsSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  let after = position.after;
  while (reader.budget.entities > 0) {
    const listed = await listCollection(store, collections.relations(store.model), {
      limit: reader.budget.entities,
      ...(after ? { cursor: after } : {}),
    });
    const relations = await readEach<Relation>(reader, listed.items);
    // A few names are enough to tell the user who to look at; the count says the rest.
    const scopes = await Promise.all(
      relations.map(async (r) =>
        r?.life === 'dying' ? (await reader.bounded(() => listScope(store, r, { limit: 5 }))).items.map((m) => m.unit) : [],
      ),
    );
    for (const [i, relation] of relations.entries()) {
      if (relation) {
        const doc = relationDoc(relation, scopes[i]!);
        if (!fits(reader, bytes(doc) + 1, hasEntities(page))) return { section: 'relations', ...(after ? { after } : {}) };
        (page.relations ??= []).push(doc);
      }
      after = collectionCursorAfter(store, listed.items[i]!);
    }
    if (!listed.cursor) return undefined;
  }
  return { section: 'relations', ...(after ? { after } : {}) };
}
