// Reserving sequence numbers before the transaction that uses them (shared/domain/sequences.ts).
//
// One UpdateItem `ADD value :n` on the sequence's item, returning the new value, reserves the n
// numbers below it: DynamoDB applies each ADD atomically, so two reservations never overlap,
// however many processes reserve at once, and neither waits for or cancels the other. The
// transaction that creates the entities then only puts them (attribute_not_exists, which would
// also refuse any number used before), so operations that take numbers from one sequence no
// longer conflict on it, as they did while each transaction asserted the sequence's value.
//
// The reservations belong to one operation and outlive its attempts: a transaction cancelled by a
// conflict elsewhere re-plans with the numbers already reserved, so a retry takes no new numbers
// and, when nothing fails, the numbers are Juju's: 0, 1, 2, ... A reservation whose operation
// then fails, or whose process dies before committing, is a gap, never a reuse.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Numbers } from '../../domain/sequences.js';
import { refs } from '../../domain/plan.js';
import { ATTR, keyOf } from './keys.js';
import { getSequence } from './reads.js';
import type { Store } from './store.js';

/** Reserves `count` numbers of `sequence` (the counter moves forward by `count`) and returns them. */
export async function reserveNumbers(store: Store, sequence: string, count: number): Promise<number[]> {
  const out = await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: keyOf(store.model, refs.sequence(sequence)),
      // The kind too, so the item reads back as a sequence's (codec.ts) whichever call made it.
      UpdateExpression: 'SET #kind = :kind ADD #value :count',
      ExpressionAttributeNames: { '#kind': ATTR.kind, '#value': 'value' },
      ExpressionAttributeValues: { ':kind': 'sequence', ':count': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const next = Number(out.Attributes?.value);
  return Array.from({ length: count }, (_, i) => next - count + i);
}

/** The numbers one operation has reserved so far, kept across its attempts. */
export class NumberReservations {
  private readonly reserved = new Map<string, number[]>();

  constructor(private readonly store: Store) {}

  /**
   * Runs the pure `plan` with the numbers it takes. A plan asks for what it needs only as it
   * plans, so a plan that takes more than is reserved runs once more after the shortfall is
   * reserved; the first run's numbers are stand-ins, and its result is thrown away. A plan that
   * throws reserves nothing: a refusal costs no number.
   */
  async plan<T>(plan: (numbers: Numbers) => T): Promise<T> {
    for (let run = 0; ; run++) {
      const wanted = new Map<string, number>();
      let result: T;
      try {
        result = plan(this.handOut(wanted, () => undefined));
      } catch (e) {
        throw await this.refusal(plan, e, wanted);
      }
      const short = [...wanted].filter(([sequence, n]) => n > (this.reserved.get(sequence)?.length ?? 0));
      if (short.length === 0) return result;
      // A plan is a function of what it read: it takes as much again once the numbers exist.
      if (run > 0) throw new Error(`a plan took more numbers of ${short.map(([s]) => s).join(', ')} on its second run`);
      await Promise.all(
        short.map(async ([sequence, n]) => {
          const have = this.reserved.get(sequence) ?? [];
          this.reserved.set(sequence, [...have, ...(await reserveNumbers(this.store, sequence, n - have.length))]);
        }),
      );
    }
  }

  /** Numbers for one run of a plan: the reserved ones, then `beyond` (or a stand-in) for each index past them. */
  private handOut(wanted: Map<string, number>, beyond: (sequence: string, index: number) => number | undefined): Numbers {
    return {
      take: (sequence, count) => {
        const from = wanted.get(sequence) ?? 0;
        wanted.set(sequence, from + count);
        const have = this.reserved.get(sequence) ?? [];
        // Stand-ins are negative, so never a real number; their run's result is thrown away.
        return Array.from({ length: count }, (_, i) => have[from + i] ?? beyond(sequence, from + i) ?? -1 - (from + i));
      },
    };
  }

  /**
   * The error a refused plan gives. Its message may name a number the plan took (Juju's
   * 'cannot assign unit "mysql/0" to machine 0'), so where it took a stand-in it runs again with
   * the numbers it would get next, read and not reserved: the refusal names them and moves no counter.
   */
  private async refusal<T>(plan: (numbers: Numbers) => T, error: unknown, wanted: Map<string, number>): Promise<unknown> {
    const short = [...wanted.keys()].filter((sequence) => wanted.get(sequence)! > (this.reserved.get(sequence)?.length ?? 0));
    if (short.length === 0) return error;
    const next = new Map(await Promise.all(short.map(async (s) => [s, await getSequence(this.store, s)] as const)));
    try {
      plan(
        this.handOut(new Map(), (sequence, index) => {
          const first = next.get(sequence);
          return first === undefined ? undefined : first + index - (this.reserved.get(sequence)?.length ?? 0);
        }),
      );
    } catch (again) {
      return again;
    }
    return error;
  }
}
