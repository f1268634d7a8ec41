// A unit's storage as it stands: its attachments and their instances, read together in one
// BatchGetItem (shared/domain/storage.ts says how they are kept).
import type { Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import type { StorageAttachment, StorageInstance } from '../../domain/storage.js';
import { getEach } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export interface UnitStorage {
  attachments: StorageAttachment[];
  instances: StorageInstance[];
}

/** The attachments of `unit.storageAttachments` and their instances, those that exist, in id order. */
export async function readUnitStorage(store: Store, unit: Pick<Unit, 'name' | 'storageAttachments'>): Promise<UnitStorage> {
  const ids = unit.storageAttachments ?? [];
  if (ids.length === 0) return { attachments: [], instances: [] };
  const items = await getEach<unknown>(store, [...ids.map((id) => refs.storageAttachment(id, unit.name)), ...ids.map(refs.storage)]);
  const present = <T>(list: unknown[]) => list.filter((x): x is T => x !== undefined);
  return {
    attachments: present<StorageAttachment>(items.slice(0, ids.length)),
    instances: present<StorageInstance>(items.slice(ids.length)),
  };
}
