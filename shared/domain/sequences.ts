// Sequences for machine ids, unit numbers (one per application name), relation ids and task ids.
//
// A number is reserved before the transaction that uses it, by an atomic counter that only moves
// forward (shared/state/engine/number-reservations.ts), so it is never handed out twice: not after
// the entity is removed, not after its application is removed and deployed again, not to two
// operations at once. The transaction itself does not touch the sequence, so operations that
// take numbers from the same sequence do not conflict with each other. A number reserved by an
// operation that then fails, or by a process that dies before committing, is never used: a gap,
// as Juju's sequences can leave too.
export const sequenceNames = {
  machine: 'machine',
  relation: 'relation',
  /** Storage instances' numbers: one model-wide sequence, as Juju's (`data/0`, `logs/1`). */
  storage: 'storage',
  unitsOf: (application: string) => `unit#${application}`,
};

/**
 * Numbers reserved for one operation. A plan calls `take` for each use; calls on one sequence
 * hand out successive numbers, in the order the sequence reserved them (increasing).
 */
export interface Numbers {
  take(sequence: string, count: number): number[];
}

/**
 * Numbers handed out from fixed starting points (0 for a sequence not named): what the
 * reservations give when nothing fails and nothing runs concurrently. For plans run without a
 * table (unit tests, what-if planning).
 */
export function sequentialNumbers(next: Record<string, number> = {}): Numbers {
  const cursor = new Map(Object.entries(next));
  return {
    take(sequence, count) {
      const first = cursor.get(sequence) ?? 0;
      cursor.set(sequence, first + count);
      return Array.from({ length: count }, (_, i) => first + i);
    },
  };
}
