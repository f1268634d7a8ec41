// Entities ↔ items. Set-valued fields are DynamoDB string sets, so membership can be added and
// removed with ADD/DELETE and asserted with contains(); DynamoDB drops empty sets, so a missing
// set reads back as [].
import type { EntityRef } from '../../domain/plan.js';
import { ATTR, collectionOf, keyOf } from './keys.js';

export const SET_FIELDS: Record<EntityRef['kind'], readonly string[]> = {
  model: [],
  modelName: [],
  modelDefaults: [],
  application: ['relations', 'offers'],
  unit: ['subordinates', 'scopes', 'openPorts', 'pendingTasks', 'storageAttachments'],
  machine: ['principals', 'addresses'],
  relation: [],
  scope: [],
  settings: [],
  sequence: [],
  cleanup: [],
  statusLog: [],
  presence: [],
  operation: [],
  task: [],
  unitState: [],
  lease: [],
  leaderSettings: [],
  appSettings: [],
  modelRevision: [],
  offer: ['consumers', 'connections'],
  remoteApplication: ['relations'],
  secret: [],
  secretRevision: [],
  secretConsumer: [],
  secretLabel: [],
  storage: ['attachments'],
  storageAttachment: [],
};

const INTERNAL = new Set<string>(Object.values(ATTR));

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * A value as the DynamoDB client marshals it whatever its keys: every plain object becomes a Map.
 * The client tells a map from other types by the object's `constructor` property, so an object
 * with a key named `constructor` (a charm's relation setting, an action parameter) was refused as
 * an "unsupported type", or read as a Set when that key held `{ name: 'Set' }`; a Map is always a
 * map. Maps read back as plain objects, with every key they had.
 */
export function storable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(storable);
  if (!isPlainObject(value)) return value;
  return new Map(Object.entries(value).map(([k, v]) => [k, storable(v)]));
}

/** `shard`: where a created unit is listed (a create change's, shared/domain/plan.ts). */
export function toItem(model: string, ref: EntityRef, value: Record<string, unknown>, shard?: number): Record<string, unknown> {
  const item: Record<string, unknown> = { ...keyOf(model, ref), [ATTR.kind]: ref.kind };
  const collection = collectionOf(model, ref, shard);
  if (collection) {
    item[ATTR.collectionPk] = collection.pk;
    item[ATTR.collectionSk] = collection.sk;
  }
  const sets = SET_FIELDS[ref.kind];
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (sets.includes(name)) {
      const members = v as string[];
      if (members.length > 0) item[name] = new Set(members);
    } else {
      item[name] = storable(v);
    }
  }
  return item;
}

export function fromItem<T>(item: Record<string, unknown>): T {
  const kind = item[ATTR.kind] as EntityRef['kind'];
  const value: Record<string, unknown> = {};
  for (const name of SET_FIELDS[kind] ?? []) value[name] = [];
  for (const [name, v] of Object.entries(item)) {
    if (INTERNAL.has(name)) continue;
    value[name] = v instanceof Set ? [...(v as Set<string>)].sort() : v;
  }
  return value as T;
}
