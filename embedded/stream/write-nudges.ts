// On one machine the controller makes every write to its table through its own DynamoDB clients
// (the API and the functions; agents and the CLI write only through the API), so it knows when the
// stream may hold something new and need not poll an idle stream ten times a second. Each write,
// once settled, nudges the pollers (stream-poller.ts `nudge`): they poll at their interval while
// writes come, and only every idle interval once none has come for that long, until the next
// write, which they read at once. A write made by another process is read within the idle
// interval. On AWS, Lambda polls; nothing here runs there.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * The commands that write, by their names in the SDK's context. The document client's commands
 * run through the client's middleware under these names too (PutCommand as PutItemCommand).
 */
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/** Calls `nudge` after every write `client` makes, succeeded or not (a write whose answer was lost may have been made). */
export function nudgeOnWrites(client: DynamoDBClient, nudge: () => void): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } finally {
        if (WRITES.has(context.commandName ?? '')) nudge();
      }
    },
    { step: 'initialize', name: 'nudgeStreamPollersOnWrite' },
  );
}
