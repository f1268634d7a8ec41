// The provisioner's writes of a storage instance's volume: each asserts the instance is as the
// provisioner's step read it (shared/domain/plans/storage-volume.ts says why). The stream hints the
// machine of its unit (shared/messaging/hint-plan.ts, planStorage), whose agent then finds the device.
import { refs } from '../../domain/plan.js';
import {
  planRecordVolume,
  planRemoveDeadStorage,
  type RecordVolumeResult,
  type RemoveDeadStorageResult,
} from '../../domain/plans/storage-volume.js';
import type { StorageInstance, StorageVolume } from '../../domain/storage.js';
import { getItem } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function recordStorageVolume(store: Store, seen: StorageInstance, volume: StorageVolume): Promise<RecordVolumeResult> {
  return runOperation(store, `cannot record the volume of storage ${seen.id}`, async (store) =>
    planRecordVolume(await getItem<StorageInstance>(store, refs.storage(seen.id)), seen, volume),
  );
}

export async function removeDeadStorage(store: Store, seen: StorageInstance): Promise<RemoveDeadStorageResult> {
  return runOperation(store, `cannot remove storage ${seen.id}`, async (store) =>
    planRemoveDeadStorage(await getItem<StorageInstance>(store, refs.storage(seen.id)), seen),
  );
}
