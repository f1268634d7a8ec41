// The model's storage for `drover storage` and `show-storage`: every instance (listed from the
// byCollection index, a model's few in one Query) with its attachment, in Juju's shapes
// (https://github.com/juju/juju/blob/3.6/cmd/juju/storage/storage.go StorageInfo).
import { refs } from '../../domain/plan.js';
import type { StorageAttachment, StorageInstance } from '../../domain/storage.js';
import { collections } from '../engine/keys.js';
import { getEach, getMany, listAll } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export interface StorageDetails {
  instance: StorageInstance;
  attachments: StorageAttachment[];
}

/** The instances named (all of the model's when none), in id order, without their attachments. */
export async function readStorageInstances(store: Store, ids?: string[]): Promise<StorageInstance[]> {
  const wanted = ids ?? (await listAll(store, collections.storage(store.model))).flatMap((r) => (r.kind === 'storage' ? [r.id] : []));
  return getMany<StorageInstance>(store, wanted.map(refs.storage));
}

/** The instances named (all of the model's when none), each with its attachments, in id order. */
export async function readStorage(store: Store, ids?: string[]): Promise<StorageDetails[]> {
  const instances = await readStorageInstances(store, ids);
  const pairs = instances.flatMap((i) => i.attachments.map((unit) => refs.storageAttachment(i.id, unit)));
  const attachments = (await getEach<StorageAttachment>(store, pairs)).filter((a): a is StorageAttachment => a !== undefined);
  return instances.map((instance) => ({ instance, attachments: attachments.filter((a) => a.storage === instance.id) }));
}
