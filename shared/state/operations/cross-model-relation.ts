// integrate <application> <saas>: read both models' sides, plan
// (shared/domain/plans/cross-model-relation.ts), commit one transaction across the two models.
import type { RemoteApplication } from '../../domain/cross-model.js';
import type { Offer } from '../../domain/cross-model.js';
import type { Application, Model } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import type { AddRelationResult } from '../../domain/plans/add-relation.js';
import { planCrossModelRelation, type CrossModelRelationSnapshot } from '../../domain/plans/cross-model-relation.js';
import { sequenceNames } from '../../domain/sequences.js';
import { reserveNumbers } from '../engine/number-reservations.js';
import { getBatch } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import { storeForModel, type Store } from '../engine/store.js';
import { foundModel } from '../queries/model.js';
import { relationsOf } from '../queries/relation-reads.js';

/**
 * A relation between `application` of this model and the remote application `saas`. Each model's
 * relation takes its id from its own model's sequence; they are reserved once the plan is known
 * to succeed, and kept across retries.
 */
export async function addCrossModelRelation(
  store: Store,
  args: string[],
  application: Application,
  saas: RemoteApplication,
): Promise<AddRelationResult> {
  let ids: { consumer: number; offerer: number } | undefined;
  const offering = storeForModel(store, saas.offerModelKey);
  return runOperation(store, `cannot add relation "${args.join(' ')}"`, async (store) => {
    const [model, app, current] = await getBatch<[Model, Application, RemoteApplication]>(store, [
      refs.model(),
      refs.application(application.name),
      refs.remoteApplication(saas.name),
    ]);
    const found = current ?? saas;
    const [offerModel, offer] = await getBatch<[Model, Offer]>(offering, [refs.model(), refs.offer(offering.model, found.offer)]);
    const [offered] = offer ? await getBatch<[Application]>(offering, [refs.application(offer.application)]) : [undefined];
    // Fresh: an existing relation's life is not asserted.
    const [relations, offeredRelations] = await Promise.all([
      relationsOf(store, app ? [app] : [application], { fresh: true }),
      offered ? relationsOf(offering, [offered], { fresh: true }) : Promise.resolve([]),
    ]);
    const snapshot = (reserved: () => { consumer: number; offerer: number }): CrossModelRelationSnapshot => ({
      model: foundModel(store, model),
      modelKey: store.model,
      application: app ?? application,
      relations,
      saas: found,
      ...(offerModel ? { offerModel } : {}),
      ...(offer ? { offer } : {}),
      ...(offered ? { offered } : {}),
      offeredRelations,
      ids: reserved,
    });
    const now = store.now().toISOString();
    // A refused relation takes no ids: plan once without them (throwing if refused), then reserve.
    if (!ids) {
      planCrossModelRelation(
        snapshot(() => ({ consumer: 0, offerer: 0 })),
        args,
        now,
      );
      const [[consumer], [offerer]] = await Promise.all([
        reserveNumbers(store, sequenceNames.relation, 1),
        reserveNumbers(offering, sequenceNames.relation, 1),
      ]);
      ids = { consumer: consumer!, offerer: offerer! };
    }
    const reserved = ids;
    return planCrossModelRelation(
      snapshot(() => reserved),
      args,
      now,
    );
  });
}
