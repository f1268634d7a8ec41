// destroy-model: the model goes Dying, and a `model` cleanup (shared/state/operations/cleanup/model.ts)
// destroys its applications and machines in bounded batches and removes it once nothing is left
// (remove-model.ts). Juju does the same in two steps: Model.Destroy sets the model Dying and
// schedules the "applications" and "machines" cleanups for a dying model in the same transaction
// (https://github.com/juju/juju/blob/2.9/state/model.go, destroyOps), and the undertaker removes
// the model once its applications and machines are gone.
//
// While the model is Dying nothing new may be made in it: deploy, add-machine, add-unit and relate
// assert the model Alive in their transactions (deploy.ts, new-machine.ts, new-units.ts,
// add-relation.ts), so once the model is Dying and its collections are found empty they stay empty.
import type { Cleanup, Model } from '../entities.js';
import { refs, type Change, type Plan } from '../plan.js';
import { cleanupId, scheduleCleanup } from './cleanups.js';

export type DestroyModelResult = 'dying' | 'already-dying' | 'forcing';

export interface DestroyModelSnapshot {
  model: Model;
  /** The model's `model` cleanup document, if one is pending. */
  cleanup?: Cleanup;
}

/** The one `model` cleanup of a model: scheduling it twice is refused by its create's condition. */
export const modelCleanupId = (model: Pick<Model, 'name'>) => cleanupId('model', model.name);

export function planDestroyModel(snapshot: DestroyModelSnapshot, intent: { force?: boolean }, now: string): Plan<DestroyModelResult> {
  const { model } = snapshot;
  const force = intent.force === true;
  if (model.life === 'alive') {
    return {
      changes: [
        { op: 'update', ref: refs.model(), set: { life: 'dying', ...(force ? { force: true } : {}) }, expect: { life: 'alive' } },
        scheduleCleanup('model', model.name, now),
      ],
      result: 'dying',
    };
  }
  // Juju: destroying a model that is not Alive is not an error. Only what was not yet asked for
  // changes: forcing it now, or (should its document be lost) scheduling the cleanup again.
  const changes: Change[] = [];
  const forcing = force && model.force !== true;
  if (forcing) changes.push({ op: 'update', ref: refs.model(), set: { force: true }, expect: { life: 'dying', absent: ['force'] } });
  if (!snapshot.cleanup) changes.push(scheduleCleanup('model', model.name, now));
  // A cleanup waiting for the agents (notBefore) runs at once, now forcing: its update is a
  // stream record, which wakes the cleanup function.
  else if (forcing) changes.push({ op: 'update', ref: refs.cleanup(snapshot.cleanup.id), unset: ['notBefore'] });
  if (changes.length === 0) return { changes, result: 'already-dying' };
  return { changes, result: forcing ? 'forcing' : 'dying' };
}
