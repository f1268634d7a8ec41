// The table's real DynamoDB stream (DynamoDB Local), delivered to consumers one batch at a time
// under the test's control, with the event source mapping's contract as Lambda keeps it
// (https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-eventsourcemapping.html):
// - the checkpoint moves only past a batch that succeeded; a function error (or a dead process)
//   means the same batch again, from the checkpoint, to a fresh instance of the function;
// - with ReportBatchItemFailures, the checkpoint moves to the lowest failed sequence number, and
//   the next batch starts there (so records after it are delivered again).
// Deterministic where the local controller's poller (embedded/stream-poller.ts) is concurrent and
// timed: a matrix run must meet the same steps in the same order as the recording run.
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { sequenceNumberOf, toLambdaRecord } from '../../embedded/stream/lambda-event.js';
import { listShards, streamReader, type StreamReader } from '../../embedded/stream/stream-reader.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { isCrash, isInjectedFault, type FaultSeam } from './fault-seam.js';

export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;

/** One event source mapping: a consumer, its checkpoint, and how to start a new instance of it. */
export interface Consumer {
  /** The process name: its seam steps are `<name>:...`. */
  name: string;
  /** A new instance of the function (new store, new clients: nothing survives a restart). */
  start: () => StreamHandler;
  batchSize: number;
  /** The mapping's event filter: records it rejects are passed over, never delivered. */
  filter?: (record: DynamoDBRecord) => boolean;
  /**
   * Every record twice: each batch is first delivered with each record repeated, then again as
   * it is (a replay), before the checkpoint moves.
   */
  duplicates?: boolean;
}

export type DeliveryOutcome = 'idle' | 'ok' | 'partial' | 'error' | 'crashed';

interface Mapping {
  consumer: Consumer;
  handler: StreamHandler;
  /** Index into the records read so far: everything before it is settled. */
  checkpoint: number;
}

export class StreamTap {
  private readonly reader: StreamReader;
  private readonly client: DynamoDBStreamsClient;
  private streamArn = '';
  /** Every record read so far, shard after shard (a new table has one shard). */
  readonly records: DynamoDBRecord[] = [];
  private readonly cursors = new Map<string, string | undefined>();
  private readonly mappings = new Map<string, Mapping>();
  /** Errors handlers threw that were not injected (reported by the matrix). */
  readonly unexpectedErrors: string[] = [];
  /** Deliveries in all, and restarts of a consumer after its process died. */
  deliveries = 0;
  restarts = 0;

  constructor(private readonly options: { endpoint: string; table: string; dynamo: DynamoDBClient; seam: FaultSeam; region?: string }) {
    this.client = new DynamoDBStreamsClient({
      endpoint: options.endpoint,
      region: options.region ?? 'local',
      credentials: localCredentials(),
    });
    this.reader = streamReader(this.client);
  }

  add(consumer: Consumer): void {
    this.mappings.set(consumer.name, { consumer, handler: consumer.start(), checkpoint: 0 });
  }

  destroy(): void {
    this.client.destroy();
  }

  /** Reads what the stream holds beyond what was read. */
  async refresh(): Promise<void> {
    if (!this.streamArn) {
      const { Table } = await this.options.dynamo.send(new DescribeTableCommand({ TableName: this.options.table }));
      if (!Table?.LatestStreamArn) throw new Error(`table ${this.options.table} has no stream`);
      this.streamArn = Table.LatestStreamArn;
    }
    for (const shard of await listShards(this.reader, this.streamArn)) {
      const after = this.cursors.get(shard.shardId);
      const { ShardIterator } = await this.reader.getShardIterator({
        StreamArn: this.streamArn,
        ShardId: shard.shardId,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
      });
      let iterator = ShardIterator;
      // DynamoDB Local answers an open shard's end with an empty page and a next iterator.
      while (iterator) {
        const page = await this.reader.getRecords({ ShardIterator: iterator });
        const records = page.Records ?? [];
        for (const r of records) this.records.push(toLambdaRecord(r, this.streamArn));
        if (records.length > 0) this.cursors.set(shard.shardId, records[records.length - 1]!.dynamodb!.SequenceNumber);
        iterator = records.length > 0 ? page.NextShardIterator : undefined;
      }
    }
  }

  /** Records not yet settled by the consumer. */
  pending(name: string): number {
    return this.records.length - this.mapping(name).checkpoint;
  }

  private mapping(name: string): Mapping {
    const m = this.mappings.get(name);
    if (!m) throw new Error(`no consumer ${name}`);
    return m;
  }

  /** Delivers the consumer's next batch (after reading the stream), and settles it as Lambda would. */
  async deliverNext(name: string): Promise<DeliveryOutcome> {
    await this.refresh();
    const m = this.mapping(name);
    const { filter, batchSize } = m.consumer;
    // Records the filter rejects before the batch's first are settled at once, as Lambda drops them.
    while (m.checkpoint < this.records.length && filter && !filter(this.records[m.checkpoint]!)) m.checkpoint++;
    const batch: DynamoDBRecord[] = [];
    for (let i = m.checkpoint; i < this.records.length && batch.length < batchSize; i++)
      if (!filter || filter(this.records[i]!)) batch.push(this.records[i]!);
    if (batch.length === 0) return 'idle';
    if (m.consumer.duplicates) {
      const outcome = await this.deliver(
        m,
        batch.flatMap((r) => [r, r]),
        { settle: false },
      );
      if (outcome !== 'ok') return outcome;
    }
    return this.deliver(m, batch);
  }

  /** Delivers `batch` (any records: duplicates, replays) to the consumer, then settles its checkpoint. */
  async deliver(m: Mapping, batch: DynamoDBRecord[], options: { settle?: boolean } = {}): Promise<DeliveryOutcome> {
    const { seam } = this.options;
    const name = m.consumer.name;
    this.deliveries++;
    let response: DynamoDBBatchResponse | void;
    try {
      response = await seam.wrapHandler(m.handler, name)({ Records: batch });
    } catch (e) {
      if (isCrash(e) || seam.isDead(name)) {
        // The process died: a new instance gets the same batch again from the checkpoint.
        seam.revive(name);
        m.handler = m.consumer.start();
        this.restarts++;
        return 'crashed';
      }
      if (!isInjectedFault(e)) this.unexpectedErrors.push(`${name}: ${String(e)}`);
      return 'error';
    }
    if (options.settle === false) return 'ok';
    const failed = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
    const index = (sequenceNumber: string) => this.records.findIndex((r) => sequenceNumberOf(r) === sequenceNumber);
    if (failed.length === 0) {
      m.checkpoint = Math.max(m.checkpoint, index(sequenceNumberOf(batch[batch.length - 1]!)) + 1);
      return 'ok';
    }
    const lowest = Math.min(...failed.map(index).filter((i) => i >= 0));
    if (Number.isFinite(lowest)) m.checkpoint = Math.max(m.checkpoint, lowest);
    return 'partial';
  }

  /** Delivers to the consumer until it has settled everything in the stream, or `maxAttempts` deliveries. */
  async drain(name: string, maxAttempts = 20): Promise<boolean> {
    for (let i = 0; i < maxAttempts; i++) {
      const outcome = await this.deliverNext(name);
      if (outcome === 'idle') return true;
    }
    return this.pending(name) === 0;
  }

  /** The consumer's current instance and mapping, for tests that deliver by hand. */
  mappingOf(name: string): Mapping {
    return this.mapping(name);
  }
}
