// Counts a store's DynamoDB requests, and the actions they carry, through middleware on its client
// (as request-log.ts records them, but keeping nothing per request: a run of thousands of units
// sends hundreds of thousands).
import { ATTR } from '#shared/state/engine/keys.js';
import type { Store } from '#shared/state/engine/store.js';

export interface Counts {
  /** Read requests: GetItem, BatchGetItem, Query, Scan. */
  reads: number;
  /** Write requests: TransactWriteItems, PutItem, UpdateItem, DeleteItem, BatchWriteItem. */
  writes: number;
  /** Items written: a transaction's actions, a batch's items, one for a single write. */
  writeActions: number;
  transactions: number;
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand']);

export const noCounts = (): Counts => ({ reads: 0, writes: 0, writeActions: 0, transactions: 0 });

export const minus = (a: Counts, b: Counts): Counts => ({
  reads: a.reads - b.reads,
  writes: a.writes - b.writes,
  writeActions: a.writeActions - b.writeActions,
  transactions: a.transactions - b.transactions,
});

export const plus = (...all: Counts[]): Counts => all.reduce((sum, c) => minus(sum, minus(noCounts(), c)), noCounts());

/** The partition key of each item a write request writes. */
function writtenPartitions(command: string, input: Record<string, any>): string[] {
  const pk = (item: Record<string, any> | undefined) => (item ? [String(item[ATTR.pk])] : []);
  switch (command) {
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as Record<string, any>[]).flatMap((i) =>
        i.ConditionCheck ? [] : pk(i.Put?.Item ?? i.Update?.Key ?? i.Delete?.Key),
      );
    case 'BatchWriteItemCommand':
      return Object.values(input.RequestItems as Record<string, Record<string, any>[]>)
        .flat()
        .flatMap((r) => pk(r.PutRequest?.Item ?? r.DeleteRequest?.Key));
    case 'PutItemCommand':
      return pk(input.Item);
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return pk(input.Key);
    default:
      return [];
  }
}

export class RequestCounter {
  private counts = noCounts();
  /** Items written per partition key, while `byPartition` is on. */
  readonly partitions = new Map<string, number>();
  byPartition = false;

  constructor(store: Store) {
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        const input = args.input as Record<string, any>;
        if (this.byPartition)
          for (const pk of writtenPartitions(command, input)) this.partitions.set(pk, (this.partitions.get(pk) ?? 0) + 1);
        if (READS.has(command)) this.counts.reads++;
        else if (command === 'TransactWriteItemsCommand') {
          this.counts.writes++;
          this.counts.transactions++;
          this.counts.writeActions += (input.TransactItems as unknown[]).length;
        } else if (command === 'BatchWriteItemCommand') {
          this.counts.writes++;
          for (const items of Object.values(input.RequestItems as Record<string, unknown[]>)) this.counts.writeActions += items.length;
        } else if (command === 'PutItemCommand' || command === 'UpdateItemCommand' || command === 'DeleteItemCommand') {
          this.counts.writes++;
          this.counts.writeActions++;
        }
        return next(args);
      },
      { step: 'initialize', name: 'benchRequestCounter' },
    );
  }

  /** The counts so far (a copy). */
  now(): Counts {
    return { ...this.counts };
  }
}
