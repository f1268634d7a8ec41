// Removes a Dying model once nothing is left in it (shared/domain/plans/remove-model.ts decides),
// reading what is left right before the transaction. The `model` cleanup calls it, and calls it
// again later when something was left.
import type { Application, Model } from '../../domain/entities.js';
import { done, refs } from '../../domain/plan.js';
import { planForgetUnitNumbers, planRemoveModel, type RemoveModelResult } from '../../domain/plans/remove-model.js';
import { sequenceNames } from '../../domain/sequences.js';
import { getBatch, type SequenceItem } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { readModelContents } from '../queries/model-contents.js';
import { getModelName } from '../queries/models.js';

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
