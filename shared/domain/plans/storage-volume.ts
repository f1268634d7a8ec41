// What the provisioner records of a storage instance's volume (shared/provisioner/provision-volume.ts
// decides it): the volume made and attached, or the Dead instance removed once its volume is deleted.
// The step acted on the instance as it read it (`seen`), so each write asserts the instance is still
// so: a concurrent change (its unit detached, the instance destroyed) or a second provisioner's
// write makes this one stale, and the next full reconcile decides again from what state then holds.
import { refs, type Expect, type Plan } from '../plan.js';
import type { StorageInstance, StorageVolume } from '../storage.js';

export type RecordVolumeResult = 'recorded' | 'stale';
export type RemoveDeadStorageResult = 'removed' | 'stale';

const VOLUME_FIELDS = ['volumeId', 'device', 'attachedTo'] as const;

const sameVolume = (a: StorageVolume | undefined, b: StorageVolume | undefined): boolean => VOLUME_FIELDS.every((f) => a?.[f] === b?.[f]);

const sameAttachments = (a: string[], b: string[]): boolean => a.length === b.length && a.every((u) => b.includes(u));

/** Whether the instance is as the step read it: its life, its volume and its attachments. */
export const unchangedSince = (current: StorageInstance, seen: StorageInstance): boolean =>
  current.life === seen.life && sameVolume(current.volume, seen.volume) && sameAttachments(current.attachments, seen.attachments);

/** The conditions that say so, for the transaction. */
function expectUnchanged(seen: StorageInstance): Expect {
  const equals: Record<string, string> = {};
  const absent: string[] = [];
  if (!seen.volume) absent.push('volume');
  else for (const f of VOLUME_FIELDS) seen.volume[f] === undefined ? absent.push(`volume.${f}`) : (equals[`volume.${f}`] = seen.volume[f]);
  return {
    life: seen.life,
    ...(Object.keys(equals).length > 0 ? { equals } : {}),
    ...(absent.length > 0 ? { absent } : {}),
    setSize: { attachments: seen.attachments.length },
    ...(seen.attachments.length > 0 ? { contains: { attachments: seen.attachments } } : {}),
  };
}

/** Records `volume` as the instance's, if the instance is still as `seen`; already recorded is done. */
export function planRecordVolume(
  current: StorageInstance | undefined,
  seen: StorageInstance,
  volume: StorageVolume,
): Plan<RecordVolumeResult> {
  if (current && sameVolume(current.volume, volume) && unchangedSince({ ...current, volume: seen.volume }, seen)) {
    return { changes: [], result: 'recorded' };
  }
  if (!current || !unchangedSince(current, seen)) return { changes: [], result: 'stale' };
  return {
    changes: [{ op: 'update', ref: refs.storage(seen.id), set: { volume: { ...volume } }, expect: expectUnchanged(seen) }],
    result: 'recorded',
  };
}

/** Removes a Dead instance whose volume is deleted, if it is still as `seen`; already gone is done. */
export function planRemoveDeadStorage(current: StorageInstance | undefined, seen: StorageInstance): Plan<RemoveDeadStorageResult> {
  if (!current) return { changes: [], result: 'removed' };
  if (seen.life !== 'dead' || !unchangedSince(current, seen)) return { changes: [], result: 'stale' };
  return { changes: [{ op: 'remove', ref: refs.storage(seen.id), expect: expectUnchanged(seen) }], result: 'removed' };
}
