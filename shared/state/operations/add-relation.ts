import type { Application, Model } from '../../domain/entities.js';
import { planAddRelation, type AddRelationResult } from '../../domain/plans/add-relation.js';
import { refs } from '../../domain/plan.js';
import { invalidArgument } from '../../domain/errors.js';
import { parseEndpointArg } from '../../domain/relation-endpoints.js';
import { getBatch, getMany } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { foundModel } from '../queries/model.js';
import type { RemoteApplication } from '../../domain/cross-model.js';
import { addCrossModelRelation } from './cross-model-relation.js';
import { relationsOf } from '../queries/relation-reads.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** An argument names a remote application: the relation is across models (cross-model-relation.ts). */
class AcrossModels {
  constructor(
    readonly application: Application,
    readonly saas: RemoteApplication,
  ) {}
}

/**
 * relate (add-relation): infers the endpoints from `args` (`app` or `app:endpoint`, one or two),
 * then creates the relation with both applications referencing it. One of them may be a remote
 * application (integrate with a consumed offer): then a relation across the two models.
 */
export async function addRelation(store: Store, args: string[]): Promise<AddRelationResult> {
  try {
    return await addLocalRelation(store, args);
  } catch (e) {
    if (!(e instanceof AcrossModels)) throw e;
    return addCrossModelRelation(store, args, e.application, e.saas);
  }
}

async function addLocalRelation(store: Store, args: string[]): Promise<AddRelationResult> {
  // The relation's id, kept across attempts.
  const reservations = new NumberReservations(store);
  const attempt: Attempt<AddRelationResult> = async (store) => {
    const names = [...new Set(args.map((arg) => parseEndpointArg(arg).application))];
    const [model, ...found] = await getBatch<[Model, ...Application[]]>(store, [refs.model(), ...names.map(refs.application)]);
    const applications = (found as (Application | undefined)[]).filter((a): a is Application => a !== undefined);
    if (applications.length < names.length) {
      const remote = await getMany<RemoteApplication>(
        store,
        names.filter((n) => !applications.some((a) => a.name === n)).map(refs.remoteApplication),
      );
      // Two remote applications are both another model's: Juju relates neither.
      if (remote.length === 1 && applications.length === 1) throw new AcrossModels(applications[0]!, remote[0]!);
      if (remote.length > 0 && applications.length === 0)
        throw invalidArgument(`cannot add relation between remote applications "${names.join('" and "')}"`);
    }
    // Fresh: an existing relation's life and which required relations are met are not asserted.
    const relations = await relationsOf(store, applications, { fresh: true });
    return reservations.plan((numbers) =>
      planAddRelation({ model: foundModel(store, model), applications, relations, numbers }, args, store.now().toISOString()),
    );
  };
  return runOperation(store, `cannot add relation "${args.join(' ')}"`, attempt, { speculate: true });
}
