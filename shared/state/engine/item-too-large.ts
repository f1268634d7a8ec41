// DynamoDB's refusal of an item over its 400 KB limit, recognised so it reaches the client as
// what it is: bad input (too much data), answered 400 with the limit named, never a 500. The
// checks in shared/domain/item-size.ts refuse the known cases first with a precise message; this
// is the net under them for whatever grows an item some other way.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { invalidArgument, type DroverError } from '../../domain/errors.js';

const ITEM_SIZE = /item size/i;

export function isItemTooLarge(e: unknown): boolean {
  if (e instanceof TransactionCanceledException)
    return (e.CancellationReasons ?? []).some((r) => r.Code === 'ValidationError' && ITEM_SIZE.test(r.Message ?? ''));
  // A Put that is too large is refused outright; an Update's result is refused inside a transaction.
  return e instanceof Error && e.name === 'ValidationException' && ITEM_SIZE.test(e.message);
}

/** `description` says what was tried, e.g. `cannot update application "wordpress" config`. */
export const itemTooLarge = (description: string): DroverError =>
  invalidArgument(
    `${description}: the change would make a stored item larger than DynamoDB's 400 KB item limit; store less, or store large data elsewhere and pass a reference`,
  );
