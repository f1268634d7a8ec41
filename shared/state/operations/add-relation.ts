import type { Application, Model } from '../../domain/entities.js';
import { planAddRelation, type AddRelationResult } from '../../domain/plans/add-relation.js';
import { refs } from '../../domain/plan.js';
import { parseEndpointArg } from '../../domain/relation-endpoints.js';
import { getBatch } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { foundModel } from '../queries/model.js';
import { refuseRemoteApplications } from '../queries/offers.js';
import { relationsOf } from '../queries/relation-reads.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * relate (add-relation): infers the endpoints from `args` (`app` or `app:endpoint`, one or two),
 * then creates the relation with both applications referencing it.
 */
export async function addRelation(store: Store, args: string[]): Promise<AddRelationResult> {
  // The relation's id, kept across attempts.
  const reservations = new NumberReservations(store);
  const attempt: Attempt<AddRelationResult> = async (store) => {
    const names = [...new Set(args.map((arg) => parseEndpointArg(arg).application))];
    const [model, ...found] = await getBatch<[Model, ...Application[]]>(store, [refs.model(), ...names.map(refs.application)]);
    const applications = (found as (Application | undefined)[]).filter((a): a is Application => a !== undefined);
    if (applications.length < names.length)
      await refuseRemoteApplications(
        store,
        names.filter((n) => !applications.some((a) => a.name === n)),
      );
    // Fresh: an existing relation's life and which required relations are met are not asserted.
    const relations = await relationsOf(store, applications, { fresh: true });
    return reservations.plan((numbers) =>
      planAddRelation({ model: foundModel(store, model), applications, relations, numbers }, args, store.now().toISOString()),
    );
  };
  return runOperation(store, `cannot add relation "${args.join(' ')}"`, attempt, { speculate: true });
}
