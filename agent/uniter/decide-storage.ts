// The storage rules of the unit agent's decision (agent/uniter/decide.ts), as Juju 3.6's storage
// resolver has them (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/storage/resolver.go):
// - an Alive attachment the agent has not made ready is made ready first (the storage directory,
//   or the EBS volume's filesystem, at its location) and reported `storage-attached`;
// - an Alive attachment with a location whose storage-attached hook has not run runs it: for the
//   storage the unit has at install, before install ("we do not run install hook before any
//   storage provisioned with the deployment of the unit is available"), and until all of it is
//   ready the unit waits; for storage that comes later, when it appears;
// - a Dying attachment (every attachment of a Dying unit) whose storage-attached hook ran runs
//   storage-detaching, then the controller is told `storage-detached`; one whose hook never ran
//   is detached at once, without a hook (Juju's maybeShortCircuitRemoval);
// - a Dead attachment needs nothing; what the view no longer shows is forgotten.
// Each step is remembered in state.json (LocalState.storage) as it completes, so an agent killed
// between two steps neither runs a hook twice nor skips one.
import type { UnitStorage } from '../storage/unit-storage.js';
import type { StorageHook } from './hooks.js';
import type { LocalState } from './local-state.js';

export type StorageStep =
  | { kind: 'run-hook'; hook: StorageHook }
  /** Make the storage ready on the machine, then report it attached there. */
  | { kind: 'attach-storage'; storage: UnitStorage }
  /** Let go of the storage on the machine (unmount), then report it detached. */
  | { kind: 'detach-storage'; storage: UnitStorage }
  /** Local memory of an attachment the view no longer shows. */
  | { kind: 'forget-storage'; storage: string }
  | { kind: 'wait'; why: 'storage' };

/** Whether the agent can make this attachment ready now: an EBS volume once attached to the machine's instance. */
export const preparable = (storage: UnitStorage): boolean => (storage.pool === 'ebs' ? storage.volume?.device !== undefined : true);

/**
 * The storage step owed, if any. `attachments`: the unit's, in id order; `unitAlive`: a Dying unit
 * detaches all of its storage. A wait only before install: after it, storage still being
 * provisioned holds nothing else up.
 */
export function storageStep(local: LocalState, attachments: UnitStorage[], unitAlive: boolean): StorageStep | undefined {
  for (const id of Object.keys(local.storage ?? {}).sort()) {
    const seen = attachments.find((a) => a.id === id);
    if (!seen || seen.life === 'dead') return { kind: 'forget-storage', storage: id };
  }
  let pending = false;
  for (const storage of attachments) {
    if (storage.life === 'dead') continue;
    const progress = local.storage?.[storage.id];
    const dying = !unitAlive || storage.life === 'dying';
    if (progress === 'detached') continue;
    if (progress === 'detaching') return { kind: 'detach-storage', storage };
    if (dying) {
      if (progress === 'attached') return { kind: 'run-hook', hook: { kind: 'storage-detaching', storage: storage.id } };
      return { kind: 'detach-storage', storage };
    }
    if (progress === 'attached') continue;
    if (storage.location !== undefined) return { kind: 'run-hook', hook: { kind: 'storage-attached', storage: storage.id } };
    if (preparable(storage)) return { kind: 'attach-storage', storage };
    pending = true;
  }
  return pending && !local.installed ? { kind: 'wait', why: 'storage' } : undefined;
}
