// The full reconcile's volume step (reconcile-all.ts): every model's storage instances of a volume
// pool (`ebs`), each taken through provisionVolume (provision-volume.ts) with the instance of its
// unit's machine, and what it answers recorded with a write that asserts the instance unchanged
// (shared/state/operations/storage-volume.ts), so a retried or concurrent run is safe.
//
// A released instance (remove-storage --no-destroy, destroy-model --release-storage) is left as it
// is: its volume is the user's, never deleted here, and reap-volumes.ts keeps it too.
import type { StorageAttachment, StorageInstance } from '../domain/storage.js';
import { knownPool } from '../domain/storage.js';
import { forEachBounded } from '../domain/bounded.js';
import { errorMessage } from '../domain/errors.js';
import type { Volumes } from '../provider/provider.js';
import { getMachine, getUnit } from '../state/engine/reads.js';
import type { Store } from '../state/engine/store.js';
import { recordStorageVolume, removeDeadStorage } from '../state/operations/storage-volume.js';
import { readStorage } from '../state/queries/storage.js';
import { machineLabel } from './deps.js';
import { provisionVolume } from './provision-volume.js';

export interface ReconcileVolumesInput {
  volumes: Volumes;
  controllerId: string;
  models: Store[];
  concurrency: number;
  /** True once no more storage should be started on (the run's deadline). */
  pastDeadline: () => boolean;
}

export interface ReconcileVolumesResult {
  /** Storage instances whose volume was recorded (made, attached or detached), named as machineLabel names machines. */
  recorded: string[];
  /** Dead storage instances whose volume was deleted and which were removed. */
  removed: string[];
  failures: { error: string }[];
  /** Storage instances left for the next run: the deadline came first. */
  unfinished: number;
}

interface VolumeStorageItem {
  store: Store;
  instance: StorageInstance;
  attachments: StorageAttachment[];
}

const hasVolume = (instance: StorageInstance) => knownPool(instance.pool)?.provider === 'ebs';

export async function reconcileVolumes(input: ReconcileVolumesInput): Promise<ReconcileVolumesResult> {
  const result: ReconcileVolumesResult = { recorded: [], removed: [], failures: [], unfinished: 0 };
  const items: VolumeStorageItem[] = [];
  for (const store of input.models) {
    try {
      for (const { instance, attachments } of await readStorage(store)) {
        if (hasVolume(instance) && !(instance.life === 'dead' && instance.release)) items.push({ store, instance, attachments });
      }
    } catch (e) {
      result.failures.push({ error: `cannot read the storage of model ${store.model}: ${errorMessage(e)}` });
    }
  }
  await forEachBounded(items, input.concurrency, async (item) => {
    const label = machineLabel(item.store.model, item.instance.id);
    if (input.pastDeadline()) {
      result.unfinished++;
      return;
    }
    try {
      await reconcileOne(input, item, label, result);
    } catch (e) {
      result.failures.push({ error: `storage ${label}: ${errorMessage(e)}` });
    }
  });
  return result;
}

async function reconcileOne(input: ReconcileVolumesInput, item: VolumeStorageItem, label: string, result: ReconcileVolumesResult) {
  const { store, instance } = item;
  const outcome = await provisionVolume(input.volumes, {
    controllerId: input.controllerId,
    storage: {
      id: instance.id,
      model: store.model,
      size: instance.size,
      life: instance.life,
      ...(instance.volume ? { volume: instance.volume } : {}),
      poolAttributes: {},
    },
    ...((await instanceOf(store, item.attachments)) ?? {}),
  });
  switch (outcome.kind) {
    case 'unchanged':
      return;
    case 'record':
      if ((await recordStorageVolume(store, instance, outcome.volume)) === 'recorded') result.recorded.push(label);
      return;
    case 'deleted':
      if ((await removeDeadStorage(store, instance)) === 'removed') result.removed.push(label);
      return;
    case 'error':
      // What was made before the refusal is recorded all the same, so the volume is known.
      if (outcome.volume && (await recordStorageVolume(store, instance, outcome.volume)) === 'recorded') result.recorded.push(label);
      result.failures.push({ error: `storage ${label}: ${outcome.error.message}` });
  }
}

/** The instance of the machine of the unit the storage is attached to (attachment Alive or Dying), if it has one. */
async function instanceOf(store: Store, attachments: StorageAttachment[]): Promise<{ instanceId: string } | undefined> {
  const attachment = attachments.find((a) => a.life !== 'dead');
  if (!attachment) return undefined;
  // The unit's machine, not the attachment's copy: a unit placed after its storage was made has it only on the unit.
  const machineId = (await getUnit(store, attachment.unit))?.machine ?? attachment.machine;
  if (machineId === undefined) return undefined;
  const instanceId = (await getMachine(store, machineId))?.instanceId;
  return instanceId ? { instanceId } : undefined;
}
