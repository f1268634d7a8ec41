import type { Application, Model, Relation } from '../../domain/entities.js';
import { invalidArgument, notFound } from '../../domain/errors.js';
import { planNewUnits, type NewUnits } from '../../domain/plans/new-units.js';
import { UNITS_PER_TRANSACTION } from '../../domain/plans/deploy.js';
import { pendingRequirements } from '../../domain/required-relations.js';
import { refs } from '../../domain/plan.js';
import { foundModel } from '../queries/model.js';
import { readPlacements } from '../queries/placement.js';
import { getBatch, getMany } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export interface AddUnitsResult {
  units: string[];
  machines: string[];
}

/**
 * add-unit -n: each chunk of units is one transaction (so none grows with -n); a chunk either
 * lands whole or not at all.
 */
export async function addUnits(
  store: Store,
  application: string,
  options: { count?: number; to?: string[] } = {},
): Promise<AddUnitsResult> {
  const count = options.count ?? 1;
  if (!Number.isInteger(count) || count < 1) throw invalidArgument('--num-units must be a positive integer');
  const result: AddUnitsResult = { units: [], machines: [] };
  for (let done = 0; done < count; done += UNITS_PER_TRANSACTION) {
    const chunk = Math.min(UNITS_PER_TRANSACTION, count - done);
    const to = options.to?.slice(done, done + chunk);
    // The chunk's unit numbers and new machines' ids, kept across attempts.
    const reservations = new NumberReservations(store);
    const attempt: Attempt<NewUnits> = async (store) => {
      const [[modelItem, app], placements] = await Promise.all([
        getBatch<[Model, Application]>(store, [refs.model(), refs.application(application)]),
        readPlacements(store, to),
      ]);
      const model = foundModel(store, modelItem);
      if (!app) throw notFound(`cannot add unit to application "${application}": application "${application}" not found`);
      // Fresh: the plan does not assert which required relations are met.
      const relations = await getMany<Relation>(store, app.relations.map(refs.relation), { fresh: true });
      const planned = await reservations.plan((numbers) =>
        planNewUnits({
          model,
          application: app,
          numbers,
          count: chunk,
          placements,
          pending: pendingRequirements(app, relations),
          now: store.now().toISOString(),
        }),
      );
      return { changes: planned.changes, result: planned };
    };
    const added = await runOperation(store, `cannot add unit to application "${application}"`, attempt, { speculate: true });
    result.units.push(...added.units);
    result.machines.push(...added.machines);
  }
  return result;
}
