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
import { invalidArgument } from '../errors.js';
import type { StorageInstance } from '../storage.js';
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

/** What becomes of the model's persistent storage: `--destroy-storage` or `--release-storage`. */
export type StorageDisposal = 'destroy' | 'release';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * Juju 3.6 refuses to destroy a model holding persistent storage until the user says what becomes
 * of it (https://github.com/juju/juju/blob/3.6/cmd/juju/model/destroy.go), in these words.
 */
export function persistentStorageRefusal(model: string, persistent: Pick<StorageInstance, 'kind'>[]): string {
  const volumes = persistent.length;
  const filesystems = persistent.filter((s) => s.kind === 'filesystem').length;
  const remaining = filesystems ? `${plural(volumes, 'volume')} and ${plural(filesystems, 'filesystem')}` : plural(volumes, 'volume');
  return `cannot destroy model "${model}"

The model has persistent storage remaining:
	${remaining}

To destroy the storage, run the destroy-model
command again with the "--destroy-storage" option.

To release the storage from Juju's management
without destroying it, use the "--release-storage"
option instead. The storage can then be imported
into another Juju model.`;
}

export function planDestroyModel(
  snapshot: DestroyModelSnapshot & { persistentStorage?: Pick<StorageInstance, 'kind'>[] },
  intent: { force?: boolean; storage?: StorageDisposal },
  now: string,
): Plan<DestroyModelResult> {
  const { model } = snapshot;
  const force = intent.force === true;
  if (model.life === 'alive') {
    const persistent = snapshot.persistentStorage ?? [];
    if (persistent.length > 0 && !intent.storage) throw invalidArgument(persistentStorageRefusal(model.name, persistent));
    const storage = intent.storage ? { storageDisposal: intent.storage } : {};
    return {
      changes: [
        {
          op: 'update',
          ref: refs.model(),
          set: { life: 'dying', ...(force ? { force: true } : {}), ...storage },
          expect: { life: 'alive' },
        },
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
