// "Bad input gets a clear error and changes nothing": the operation fails with exactly this
// message (and code), and every item of the table is as it was.
import { expect } from 'vitest';
import { isDroverError, type ErrorCode } from '../../shared/domain/errors.js';
import type { Store } from '../../shared/state/engine/store.js';
import { dumpTable } from './table-dump.js';

export async function expectRefusedUnchanged(store: Store, op: () => Promise<unknown>, message: string, code?: ErrorCode): Promise<void> {
  const before = await dumpTable(store);
  const error = await op().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toBe(message);
  if (code) expect(isDroverError(error, code)).toBe(true);
  expect(await dumpTable(store)).toEqual(before);
}
