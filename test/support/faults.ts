// Fault injection for the conflict-retry path. DynamoDB Local serialises transactions and never
// returns TransactionConflict, so tests make the client fail TransactWriteItems on purpose, with
// the very exception DynamoDB sends.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Store } from '#shared/state/engine/store.js';

/** Cancels the next `times` transactions as conflicting; returns a counter of cancellations. */
export function injectTransactionConflicts(store: Store, times: number): { cancelled: number } {
  const counter = { cancelled: 0 };
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && counter.cancelled < times) {
        counter.cancelled++;
        throw new TransactionCanceledException({
          message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
          $metadata: {},
          CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
        });
      }
      return next(args);
    },
    { step: 'initialize', name: `injectConflicts${Math.random()}` },
  );
  return counter;
}
