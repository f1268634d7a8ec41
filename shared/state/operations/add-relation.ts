import type { Application, Model } from '../../domain/entities.js';
import { planAddRelation, type AddRelationResult } from '../../domain/plans/add-relation.js';
import { refs } from '../../domain/plan.js';
import { parseEndpointArg } from '../../domain/relation-endpoints.js';
import { sequenceNames } from '../../domain/sequences.js';
import { getBatch, sequenceValue, type SequenceItem } from '../engine/reads.js';
import { foundModel } from '../queries/model.js';
import { relationsOf } from '../queries/relation-reads.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * relate (add-relation): infers the endpoints from `args` (`app` or `app:endpoint`, one or two),
 * then creates the relation with both applications referencing it.
 */
export async function addRelation(store: Store, args: string[]): Promise<AddRelationResult> {
  const attempt: Attempt<AddRelationResult> = async (store) => {
    const names = [...new Set(args.map((arg) => parseEndpointArg(arg).application))];
    const [model, relationSequence, ...found] = await getBatch<[Model, SequenceItem, ...Application[]]>(store, [
      refs.model(),
      refs.sequence(sequenceNames.relation),
      ...names.map(refs.application),
    ]);
    const applications = (found as (Application | undefined)[]).filter((a): a is Application => a !== undefined);
    // Fresh: an existing relation's life and which required relations are met are not asserted.
    const relations = await relationsOf(store, applications, { fresh: true });
    return planAddRelation(
      { model: foundModel(store, model), applications, relations, relationSequence: sequenceValue(relationSequence) },
      args,
      store.now().toISOString(),
    );
  };
  return runOperation(store, `cannot add relation "${args.join(' ')}"`, attempt, { speculate: true });
}
