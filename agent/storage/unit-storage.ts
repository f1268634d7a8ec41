// What the agent reads of a unit's storage: the unit's storage attachments as its view carries them
// (the `storage` field of the unit in the agent API's `view`, the storage contract's shape), and
// Juju's storage ids, `<name>/<n>` (https://github.com/juju/names/blob/v5/storage.go).
import type { Unit } from '#shared/domain/entities.js';
import { compareNatural } from '#shared/domain/natural-order.js';
import type { UnitStorageView } from '#shared/domain/storage.js';

/** One storage attachment of the unit, as the view shows it (defined once, with the view, in shared/domain/storage.ts). */
export type UnitStorage = UnitStorageView;
export type { StorageKind } from '#shared/domain/storage.js';

/** Juju's names.IsValidStorage: a storage name, `/`, a number without leading zeros. */
const STORAGE_ID = /^([a-z][a-z0-9]*(?:-[a-z0-9]*[a-z][a-z0-9]*)*)\/(0|[1-9][0-9]*)$/;

export const isValidStorageId = (id: string): boolean => STORAGE_ID.test(id);

/** `data` of `data/0`. */
export const storageNameOf = (id: string): string => id.slice(0, id.lastIndexOf('/'));

/** The unit's storage attachments in id order (`data/2` before `data/10`); none in a view that carries none. */
export function unitStorageOf(unit: Unit | undefined): UnitStorage[] {
  const storage = (unit as (Unit & { storage?: UnitStorage[] }) | undefined)?.storage ?? [];
  return [...storage].sort((a, b) => compareNatural(a.id, b.id));
}
