// Records the requests a store's client sends, through the same client middleware stack the
// fault-injection tests use (test/support/faults.ts). At the `initialize` step a document-client
// command still carries its plain-JavaScript input, which is what the raw replay clones.
//
// When asked to, it also snapshots, just before each write is sent, the items the write updates,
// checks or deletes (through a second client, so unrecorded), for the raw replay to copy. The
// time that takes is kept apart, so a timed section can leave it out.
import { performance } from 'node:perf_hooks';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR } from '#shared/state/engine/keys.js';
import type { Store } from '#shared/state/engine/store.js';

export type Item = Record<string, unknown>;
export const keyId = (key: Item) => `${String(key[ATTR.pk])}|${String(key[ATTR.sk])}`;

export interface SentRequest {
  command: string;
  input: Record<string, any>;
  /** performance.now() when sent and when answered (the whole send: marshalling, HTTP, parsing). */
  start: number;
  end: number;
  /** With snapshots: the items this write targets, as they were just before it, by keyId. */
  before?: Map<string, Item>;
}

/** The keys of the items a write request updates, checks or deletes (not those it puts). */
export function targetKeys(command: string, input: Record<string, any>): Item[] {
  switch (command) {
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as Record<string, any>[]).flatMap((i) => {
        const key = i.Update?.Key ?? i.ConditionCheck?.Key ?? i.Delete?.Key;
        return key ? [key] : [];
      });
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return [input.Key];
    case 'BatchWriteItemCommand':
      return Object.values(input.RequestItems as Record<string, Record<string, any>[]>)
        .flat()
        .flatMap((r) => (r.DeleteRequest ? [r.DeleteRequest.Key] : []));
    default:
      return [];
  }
}

/** What one operation (or one destroy) cost, in requests and write actions. */
export interface Tally {
  transactions: number;
  /** TransactItems summed over the transactions. */
  transactionActions: number;
  maxTransactionActions: number;
  /** PutItem/UpdateItem/DeleteItem, one each, plus every BatchWriteItem request item. */
  plainWrites: number;
  gets: number;
  batchGets: number;
  queries: number;
}

export class RequestLog {
  private requests: SentRequest[] = [];
  private recording = false;
  private snapshots = false;
  /** Milliseconds spent taking snapshots during the current capture. */
  snapshotMs = 0;

  /** `reader`: a second store on the same table, whose client this log does not record. */
  constructor(
    store: Store,
    private readonly reader: Store,
  ) {
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (!this.recording) return next(args);
        const command = context.commandName ?? '?';
        const input = args.input as Record<string, any>;
        const before = this.snapshots ? await this.snapshot(targetKeys(command, input)) : undefined;
        const sent: SentRequest = { command, input, start: performance.now(), end: NaN, ...(before ? { before } : {}) };
        this.requests.push(sent);
        try {
          return await next(args);
        } finally {
          sent.end = performance.now();
        }
      },
      { step: 'initialize', name: 'benchRequestLog' },
    );
  }

  private async snapshot(keys: Item[]): Promise<Map<string, Item> | undefined> {
    if (keys.length === 0) return undefined;
    const start = performance.now();
    const found = new Map<string, Item>();
    for (let i = 0; i < keys.length; i += 100) {
      const out = await this.reader.doc.send(
        new BatchGetCommand({ RequestItems: { [this.reader.table]: { Keys: keys.slice(i, i + 100), ConsistentRead: true } } }),
      );
      for (const item of out.Responses?.[this.reader.table] ?? []) found.set(keyId(item), item);
    }
    this.snapshotMs += performance.now() - start;
    return found;
  }

  /**
   * Runs `fn`, returning the requests it sent; with `snapshots`, each write also carries the
   * items it targets as they were before it. Not re-entrant: one capture at a time.
   */
  async capture<T>(fn: () => Promise<T>, options: { snapshots?: boolean } = {}): Promise<{ value: T; requests: SentRequest[] }> {
    this.requests = [];
    this.snapshotMs = 0;
    this.snapshots = options.snapshots ?? false;
    this.recording = true;
    try {
      const value = await fn();
      return { value, requests: this.requests };
    } finally {
      this.recording = false;
    }
  }
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);
const WRITES = new Set(['TransactWriteItemsCommand', 'PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

/** Milliseconds during which at least one request of the kind was outstanding (parallel ones count once). */
export function busyMs(requests: SentRequest[], kind: 'reads' | 'writes'): number {
  const spans = requests
    .filter((r) => (kind === 'reads' ? READS : WRITES).has(r.command))
    .map((r) => [r.start, r.end] as const)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let until = -Infinity;
  for (const [start, end] of spans) {
    if (end <= until) continue;
    total += end - Math.max(start, until);
    until = end;
  }
  return total;
}

export const writes = (t: Tally) => t.transactionActions + t.plainWrites;
export const reads = (t: Tally) => t.gets + t.batchGets + t.queries;

export function tally(requests: SentRequest[]): Tally {
  const t: Tally = { transactions: 0, transactionActions: 0, maxTransactionActions: 0, plainWrites: 0, gets: 0, batchGets: 0, queries: 0 };
  for (const { command, input } of requests) {
    switch (command) {
      case 'TransactWriteItemsCommand': {
        const n = (input.TransactItems as unknown[]).length;
        t.transactions++;
        t.transactionActions += n;
        t.maxTransactionActions = Math.max(t.maxTransactionActions, n);
        break;
      }
      case 'PutItemCommand':
      case 'UpdateItemCommand':
      case 'DeleteItemCommand':
        t.plainWrites++;
        break;
      case 'BatchWriteItemCommand':
        for (const items of Object.values(input.RequestItems as Record<string, unknown[]>)) t.plainWrites += items.length;
        break;
      case 'GetItemCommand':
        t.gets++;
        break;
      case 'BatchGetItemCommand':
        t.batchGets++;
        break;
      case 'QueryCommand':
        t.queries++;
        break;
    }
  }
  return t;
}

export function sumTallies(tallies: Tally[]): Tally {
  const sum = tally([]);
  for (const t of tallies) {
    for (const k of Object.keys(sum) as (keyof Tally)[]) {
      sum[k] = k === 'maxTransactionActions' ? Math.max(sum[k], t[k]) : sum[k] + t[k];
    }
  }
  return sum;
}
