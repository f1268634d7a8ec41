// The storage instances of the models given, as the volume reaper needs them (reap-volumes.ts):
// ProvisionerDeps.storageClaims where the provider has volumes (functions/provisioner/env.ts).
import { readStorageInstances } from '../state/queries/storage.js';
import type { Store } from '../state/engine/store.js';
import type { StorageClaim } from './reap-volumes.js';

export async function readStorageClaims(stores: Store[]): Promise<StorageClaim[]> {
  const claims: StorageClaim[] = [];
  for (const store of stores) {
    for (const instance of await readStorageInstances(store)) {
      claims.push({
        model: store.model,
        storageId: instance.id,
        life: instance.life,
        ...(instance.volume ? { volumeId: instance.volume.volumeId } : {}),
        ...(instance.release ? { released: true } : {}),
      });
    }
  }
  return claims;
}
