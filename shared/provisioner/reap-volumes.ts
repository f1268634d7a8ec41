// Orphaned volumes, found and deleted by the full reconcile as stray instances are
// (reconcile-all.ts): what-we-run-and-why.txt's provisioner removes "stray instances", and Juju's
// storage provisioner destroys the volumes of dead storage. A volume is this controller's when it
// carries its controller's, deployment's and storage tags (shared/provider/ec2/volumes.ts lists
// only those); it is an orphan when no storage instance in state names it, or the one that does is
// Dead.
//
// Deleting the wrong volume loses a user's data, so the rules lean to keeping:
// - never a volume attached to an instance (`in-use`, or any attachment): its instance may be
//   using it; it is deleted once it is free;
// - never one whose storage instance (named by its tag) is Alive or Dying, even if that storage
//   names another volume or none yet (its step may be about to record it);
// - never one made less than a grace before the listing: a volume CreateVolume just made is
//   recorded only after its step returns (provision-volume.ts);
// - never one its storage instance released (remove-storage --no-destroy, destroy-model
//   --release-storage): it is the user's to keep, Dead or not;
// - the provider is listed first and state read after, so a volume recorded after the listing
//   is seen as recorded.
import type { Life } from '../domain/life.js';
import type { VolumeInfo, Volumes } from '../provider/provider.js';
import { errorMessage } from '../domain/errors.js';

/** A storage instance as the reaper needs it: which volume it names, and its life. */
export interface StorageClaim {
  model: string;
  storageId: string;
  life: Life;
  volumeId?: string;
  /** Released (--no-destroy, --release-storage): its volume is left in the cloud. */
  released?: boolean;
}

export type ReapDecision = 'delete' | 'keep';

export interface VolumeVerdict {
  volumeId: string;
  decision: ReapDecision;
  why: string;
}

/** The volume's states in which there is nothing to delete, or nothing to delete yet. */
const NOT_DELETABLE = new Set(['creating', 'deleting', 'deleted']);

/**
 * What becomes of each listed volume, given the storage instances state holds (read after the
 * listing), when it was listed and the grace for volumes made moments before.
 */
export function decideVolumes(volumes: VolumeInfo[], claims: StorageClaim[], listedAt: number, graceMs: number): VolumeVerdict[] {
  // Where two claims meet on one key (a read that straddled a change), a living one wins: it keeps the volume.
  const byVolume = new Map<string, StorageClaim>();
  const byStorage = new Map<string, StorageClaim>();
  const prefer = (map: Map<string, StorageClaim>, key: string, c: StorageClaim) => {
    const had = map.get(key);
    if (!had || had.life === 'dead') map.set(key, c);
  };
  for (const c of claims) {
    if (c.volumeId) prefer(byVolume, c.volumeId, c);
    prefer(byStorage, `${c.model} ${c.storageId}`, c);
  }
  return volumes.map((volume) => {
    const verdict = (decision: ReapDecision, why: string): VolumeVerdict => ({ volumeId: volume.volumeId, decision, why });
    if (volume.state === 'in-use' || volume.attachments.length > 0) return verdict('keep', 'attached to an instance');
    if (NOT_DELETABLE.has(volume.state)) return verdict('keep', `${volume.state}`);
    const naming = byVolume.get(volume.volumeId);
    if (naming?.released) return verdict('keep', `storage ${naming.storageId} released it`);
    if (naming && naming.life !== 'dead') return verdict('keep', `storage ${naming.storageId} is ${naming.life}`);
    const tagged = byStorage.get(`${volume.model} ${volume.storageId}`);
    if (tagged && tagged.life !== 'dead') return verdict('keep', `made for storage ${tagged.storageId}, which is ${tagged.life}`);
    if (volume.createdAt === undefined || volume.createdAt > listedAt - graceMs) return verdict('keep', 'made moments ago');
    return verdict('delete', naming ? `storage ${naming.storageId} is dead` : 'no storage instance names it');
  });
}

export interface ReapVolumesResult {
  /** Volumes deleted. */
  deleted: string[];
  failures: { volumeId?: string; error: string }[];
}

export interface ReapVolumesInput {
  volumes: Volumes;
  controllerId: string;
  /** The storage instances of every model, read when called (after the listing). */
  readClaims: () => Promise<StorageClaim[]>;
  now: () => number;
  graceMs: number;
}

/** Lists the controller's volumes, then state, and deletes the orphans; failures are reported, not thrown. */
export async function reapVolumes(input: ReapVolumesInput): Promise<ReapVolumesResult> {
  const result: ReapVolumesResult = { deleted: [], failures: [] };
  const listedAt = input.now();
  let listed: VolumeInfo[];
  let claims: StorageClaim[];
  try {
    listed = await input.volumes.listVolumes(input.controllerId);
    claims = await input.readClaims();
  } catch (e) {
    result.failures.push({ error: `cannot reap volumes: ${errorMessage(e)}` });
    return result;
  }
  for (const verdict of decideVolumes(listed, claims, listedAt, input.graceMs)) {
    if (verdict.decision !== 'delete') continue;
    try {
      await input.volumes.deleteVolume(verdict.volumeId);
      result.deleted.push(verdict.volumeId);
    } catch (e) {
      result.failures.push({ volumeId: verdict.volumeId, error: errorMessage(e) });
    }
  }
  return result;
}
