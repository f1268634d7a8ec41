// A change to one model's side of a relation across models concerns the units of the other model
// too: they read this side's scope, settings and bag (shared/state/queries/cross-model-reads.ts).
// So a record of a scope member, settings or a bag of such a relation, or the removal of its
// record, is echoed as a relation hint to the units in the other model's scope of it
// (docs/architecture.md, "Relations across models").
import type { CrossModelSide, Relation, RelationSettings, ScopeMember } from '../domain/entities.js';
import type { AppSettings } from '../domain/plans/app-settings.js';
import type { Store } from '../state/engine/store.js';
import type { StreamImages } from '../state/engine/stream-record.js';
import type { BatchReads } from './batch-reads.js';
import type { HintPlan } from './hint-plan.js';

async function sideOfRecord(store: Store, images: StreamImages, reads: BatchReads): Promise<CrossModelSide | undefined> {
  const image = images.newImage ?? images.oldImage;
  if (!image) return undefined;
  switch (images.kind) {
    case 'relation':
      // Created or set Dying, the other model's record changed in the same transaction and
      // hints its own units; removed, this side's members are gone for them.
      return images.newImage ? undefined : (image as unknown as Relation).crossModel;
    case 'scope': {
      const [relation] = await reads.relations(store, [(image as unknown as ScopeMember).relation]);
      return relation?.crossModel;
    }
    case 'appSettings': {
      const [relation] = await reads.relations(store, [(image as unknown as AppSettings).relation]);
      return relation?.crossModel;
    }
    case 'settings': {
      if (!images.newImage) return undefined;
      const settings = image as unknown as RelationSettings;
      const unit = await reads.unit(store, settings.unit);
      const relations = await reads.relations(store, unit?.scopes ?? []);
      return relations.find((r) => r?.id === settings.relationId)?.crossModel;
    }
    default:
      return undefined;
  }
}

/** The other model's key and the hint for its units in scope, when the record concerns a relation across models. */
export async function crossModelEcho(
  store: Store,
  images: StreamImages,
  reads: BatchReads,
): Promise<{ model: string; plan: HintPlan } | undefined> {
  const side = await sideOfRecord(store, images, reads);
  if (!side) return undefined;
  return {
    model: side.model,
    plan: {
      kind: 'hint',
      hint: { kind: 'relation', id: side.relation },
      // Named by its application rather than a unit: every unit in the scope is told (affected-machines.ts).
      lookups: [{ kind: 'scopeChanged', relation: side.relation, unit: side.application }],
    },
  };
}
