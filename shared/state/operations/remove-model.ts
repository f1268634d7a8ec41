// Removes a Dying model once nothing is left in it (shared/domain/plans/remove-model.ts decides),
// reading what is left right before the transaction. The `model` cleanup calls it, and calls it
// again later when something was left.
import type { Application, Model } from '../../domain/entities.js';
import { done, refs, type EntityRef } from '../../domain/plan.js';
import { planForgetUnitNumbers, planRemoveModel, type ModelContents, type RemoveModelResult } from '../../domain/plans/remove-model.js';
import { sequenceNames } from '../../domain/sequences.js';
import { collections } from '../engine/keys.js';
import { getBatch, listCollection, type SequenceItem } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { getModelName } from '../queries/models.js';

/** A few of what is left (enough to say so, and for status to name): `limit` per collection. */
export async function readModelContents(store: Store, options: { limit?: number; except?: string } = {}): Promise<ModelContents> {
  const limit = options.limit ?? 5;
  const first = async (collection: string) => (await listCollection(store, collection, { limit })).items;
  const names = (items: EntityRef[]) =>
    items.map((r) => (r.kind === 'machine' ? r.id : r.kind === 'relation' ? r.key : 'name' in r ? r.name : 'id' in r ? r.id : ''));
  const [applications, relations, cleanups, ...shards] = await Promise.all([
    first(collections.applications(store.model)),
    first(collections.relations(store.model)),
    first(collections.cleanups(store.model)),
    ...collections.machineShards(store.model).map(first),
  ]);
  return {
    applications: names(applications!),
    machines: names(shards.flat()),
    relations: names(relations!),
    cleanups: names(cleanups!).filter((id) => id !== options.except),
  };
}

export async function removeModelIfEmpty(store: Store, cleanupId: string): Promise<RemoveModelResult> {
  return runOperation(store, 'cannot remove model', async (store) => {
    const [model, machines, relations, cleanup] = await getBatch<[Model, SequenceItem, SequenceItem, unknown]>(store, [
      refs.model(),
      refs.sequence(sequenceNames.machine),
      refs.sequence(sequenceNames.relation),
      refs.cleanup(cleanupId),
    ]);
    const [name, contents] = await Promise.all([
      model ? getModelName(store, model.name) : undefined,
      readModelContents(store, { limit: 1, except: cleanupId }),
    ]);
    return planRemoveModel({
      ...(model ? { model } : {}),
      ...(name ? { name } : {}),
      key: store.model,
      contents,
      sequences: [...(machines ? [sequenceNames.machine] : []), ...(relations ? [sequenceNames.relation] : [])],
      ...(cleanup ? { cleanup: cleanupId } : {}),
    });
  });
}

/** Takes away the unit numbers of an application of a Dying model once it is not Alive (planForgetUnitNumbers). */
export async function forgetUnitNumbers(store: Store, application: string): Promise<boolean> {
  const name = sequenceNames.unitsOf(application);
  return runOperation(store, `cannot remove unit numbers of application "${application}"`, async (store) => {
    const [model, app, sequence] = await getBatch<[Model, Application, SequenceItem]>(store, [
      refs.model(),
      refs.application(application),
      refs.sequence(name),
    ]);
    if (!model) return done(false);
    return planForgetUnitNumbers(model, app, sequence ? name : undefined);
  });
}
