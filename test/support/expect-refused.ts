// "Bad input gets a clear error and changes nothing": the operation fails with exactly this
// message (and code), and every item of the table is as it was.
//
// But for one kind of change: a sequence's counter may have moved forward. An operation that
// planned from a stale snapshot (shared/state/engine/snapshot-cache.ts) reserved numbers before its
// transaction was cancelled and the fresh plan refused; those numbers are a gap, never used
// (shared/state/engine/number-reservations.ts). A counter that moved back would be a reuse.
import { expect } from 'vitest';
import { isDroverError, type ErrorCode, errorMessage } from '#shared/domain/errors.js';
import type { Store } from '#shared/state/engine/store.js';
import { dumpTable } from './table-dump.js';

const isSequence = (item: Record<string, unknown>) => String(item.pk).includes('#SEQ#');

export async function expectRefusedUnchanged(store: Store, op: () => Promise<unknown>, message: string, code?: ErrorCode): Promise<void> {
  const before = await dumpTable(store);
  const error = await op().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect(errorMessage(error)).toBe(message);
  if (code) expect(isDroverError(error, code)).toBe(true);
  const after = await dumpTable(store);
  expect(after.filter((i) => !isSequence(i))).toEqual(before.filter((i) => !isSequence(i)));
  for (const counter of after.filter(isSequence)) {
    const was = before.find((i) => i.pk === counter.pk);
    expect(counter.value, `${String(counter.pk)} moved back`).toBeGreaterThanOrEqual(Number(was?.value ?? 0));
  }
  // A counter never disappears either: its numbers would be handed out again.
  for (const was of before.filter(isSequence))
    expect(
      after.some((i) => i.pk === was.pk),
      `${String(was.pk)} was removed`,
    ).toBe(true);
}
