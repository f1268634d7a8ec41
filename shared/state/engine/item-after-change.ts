// What an item reads back as after a committed change, worked out without reading it: the
// snapshot cache keeps itself current from the operations this process commits.
//
// It mirrors commit.ts exactly: an item is what fromItem(toItem(...)) gives once DynamoDB has
// stored it (marshalled, undefined values dropped, sets as sorted arrays, empty sets absent).
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Change, EntityRef } from '../../domain/plan.js';
import { fromItem, SET_FIELDS, storable, toItem } from './codec.js';

/** A cached item: `value` undefined means the item is known not to exist. */
export interface Known {
  value: Record<string, unknown> | undefined;
}

/** Through DynamoDB's type system and back, as a read would return it. */
const stored = (item: Record<string, unknown>) =>
  unmarshall(marshall(item, { removeUndefinedValues: true, convertEmptyValues: false })) as Record<string, unknown>;

const storedValue = (v: unknown): unknown => stored({ v: storable(v) }).v;

/**
 * The item after `change`, given what it was before (`before`, undefined when not known).
 * Returns undefined when the result cannot be known (an update of an item not known): the
 * cache then forgets the item rather than guess.
 */
export function itemAfterChange(model: string, change: Change, before: Known | undefined): Known | undefined {
  switch (change.op) {
    case 'create':
    case 'put':
      return { value: fromItem(stored(toItem(model, change.ref, change.value, change.op === 'create' ? change.shard : undefined))) };
    case 'remove':
      return { value: undefined };
    case 'check':
    case 'absent':
      return before;
    case 'update': {
      if (!before?.value) return undefined;
      const value = structuredClone(before.value);
      for (const [name, v] of Object.entries(change.set ?? {})) {
        if (v === undefined) delete value[name];
        else value[name] = storedValue(v);
      }
      for (const name of change.unset ?? []) unsetAttribute(change.ref, value, name);
      for (const [name, n] of Object.entries(change.add ?? {})) value[name] = ((value[name] as number | undefined) ?? 0) + n;
      for (const [name, members] of Object.entries(change.addToSet ?? {})) {
        value[name] = [...new Set([...((value[name] as string[] | undefined) ?? []), ...members])].sort();
      }
      for (const [name, members] of Object.entries(change.removeFromSet ?? {})) {
        value[name] = ((value[name] as string[] | undefined) ?? []).filter((m) => !members.includes(m));
      }
      return { value };
    }
  }
}

/** A removed set reads back as [] (codec.ts), any other attribute as absent. */
function unsetAttribute(ref: EntityRef, value: Record<string, unknown>, name: string) {
  if (SET_FIELDS[ref.kind].includes(name)) value[name] = [];
  else delete value[name];
}
