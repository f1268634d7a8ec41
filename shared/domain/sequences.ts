// Sequences for machine ids, unit numbers (one per application name) and relation ids. A number
// is taken by the transaction that creates the entity, so it is never reused: not after the
// entity is removed, and not even after its application is removed and deployed again.
import { refs, type Change } from './plan.js';

export const sequenceNames = {
  machine: 'machine',
  relation: 'relation',
  unitsOf: (application: string) => `unit#${application}`,
};

/**
 * Takes `count` numbers from a sequence whose current value (numbers taken so far) was read as
 * `current`: they are current, current+1, .... The change asserts the value it read.
 */
export function takeNumbers(name: string, current: number, count: number): { numbers: number[]; change: Change } {
  const numbers = Array.from({ length: count }, (_, i) => current + i);
  const change: Change =
    current === 0
      ? { op: 'create', ref: refs.sequence(name), value: { value: count } }
      : { op: 'update', ref: refs.sequence(name), set: { value: current + count }, expect: { equals: { value: current } } };
  return { numbers, change };
}
