// "addUnits": the units of an add-unit -n too many for one call (shared/domain/plans/background-units.ts),
// a bounded batch at a time. Each transaction adds at most UNITS_PER_TRANSACTION units and counts
// them off the document, so a batch run twice adds nothing twice, and the run that finds the count
// moved on by another stops and leaves the document to it; once the application is gone or no
// longer Alive, or the model is being destroyed, the rest is given up.
import type { Application, Model } from '../../../domain/entities.js';
import { nextChunk, planChunk, type AddUnitsWork, type ChunkOutcome } from '../../../domain/plans/background-units.js';
import { refs } from '../../../domain/plan.js';
import { NumberReservations } from '../../engine/number-reservations.js';
import { getBatch } from '../../engine/reads.js';
import { runOperation, type Attempt } from '../../engine/run-operation.js';
import { foundModel } from '../../queries/model.js';
import { planUnits } from '../add-unit.js';
import type { CleanupStep } from './step.js';

/** Units one batch adds: 8 transactions, about a second, well inside the changes function's budget. */
export const ADD_UNITS_BATCH = 64;

export const addUnitsInBatches: CleanupStep = async (store, cleanup) => {
  // The count as this runner last knew it: from the document as the runner read it, then as its
  // own transactions left it.
  let remaining = (cleanup as AddUnitsWork).remaining ?? 0;
  for (let added = 0; remaining > 0 && added < ADD_UNITS_BATCH;) {
    const reservations = new NumberReservations(store);
    const attempt: Attempt<ChunkOutcome> = async (store) => {
      const [modelItem, application, work] = await getBatch<[Model, Application, AddUnitsWork]>(store, [
        refs.model(),
        refs.application(cleanup.target),
        refs.cleanup(cleanup.id),
      ]);
      const model = foundModel(store, modelItem);
      const next = nextChunk(work, model, application, remaining);
      if (next.kind === 'stop') return next.plan;
      const units = await planUnits(store, { model, application: next.application, count: next.count, placements: [] }, reservations);
      return planChunk(next.work, units, next.count);
    };
    // Planned from the snapshot cache first, as the call plans its own units: most batches follow
    // one another in one process, whose cache holds what the last transaction wrote.
    const outcome = await runOperation(store, `cannot add unit to application "${cleanup.target}"`, attempt, { speculate: true });
    // Left to another runner, the document stays, its count as that runner leaves it.
    if (outcome.added === 0) return outcome.remaining > 0 ? { cursor: String(outcome.remaining) } : {};
    added += outcome.added;
    remaining = outcome.remaining;
  }
  return remaining > 0 ? { cursor: String(remaining) } : {};
};
