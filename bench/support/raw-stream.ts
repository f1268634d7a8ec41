// The baseline for the stream poller's latency: the least a consumer of a DynamoDB stream can do.
// Each open shard is read from LATEST with GetShardIterator, then GetRecords in a loop that pauses
// pollIntervalMs after a call that returned less than it could (the poller's rule at the shard's
// tip), and reports each page the moment it arrives. No conversion, no handler, no checkpoints,
// no shard discovery timer: a shard that ends hands over to its children, and that is all.
//
// Also here: a StreamReader wrapper that counts and times the calls either side makes, so that the
// two sides' request rates can be compared.
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { performance } from 'node:perf_hooks';
import { pause } from '../../embedded/stream/pause.js';
import type { StreamReader } from '../../embedded/stream/stream-reader.js';

export interface StreamCalls {
  listStreams: number;
  describeStream: number;
  getShardIterator: number;
  getRecords: number;
  /** GetRecords calls that returned at least one record. */
  getRecordsWithRecords: number;
  /** Round-trip time of each GetRecords call, ms. */
  getRecordsMs: number[];
  errors: number;
}

export const noCalls = (): StreamCalls => ({
  listStreams: 0,
  describeStream: 0,
  getShardIterator: 0,
  getRecords: 0,
  getRecordsWithRecords: 0,
  getRecordsMs: [],
  errors: 0,
});

/** Passes every call on to `inner`, counting it in `calls` (which the caller may swap between blocks). */
export function countingReader(inner: StreamReader, calls: () => StreamCalls): StreamReader {
  const counted = async <T>(name: 'listStreams' | 'describeStream' | 'getShardIterator', call: () => Promise<T>): Promise<T> => {
    calls()[name]++;
    try {
      return await call();
    } catch (error) {
      calls().errors++;
      throw error;
    }
  };
  return {
    listStreams: (input, signal) => counted('listStreams', () => inner.listStreams(input, signal)),
    describeStream: (input, signal) => counted('describeStream', () => inner.describeStream(input, signal)),
    getShardIterator: (input, signal) => counted('getShardIterator', () => inner.getShardIterator(input, signal)),
    async getRecords(input, signal) {
      const tally = calls();
      tally.getRecords++;
      const start = performance.now();
      try {
        const page = await inner.getRecords(input, signal);
        tally.getRecordsMs.push(performance.now() - start);
        if ((page.Records ?? []).length > 0) tally.getRecordsWithRecords++;
        return page;
      } catch (error) {
        tally.errors++;
        throw error;
      }
    },
  };
}

export interface RawStreamReaderOptions {
  reader: StreamReader;
  streamArn: string;
  pollIntervalMs: number;
  /** GetRecords Limit (the poller asks for min(1000, batchSize) at the tip). */
  limit: number;
  /** Called as soon as a page with records arrives; `seenAt` is performance.now() then. */
  onRecords(records: _Record[], seenAt: number): void;
  log(message: string): void;
}

export interface RawStreamReader {
  stop(): Promise<void>;
}

/** Starts reading every open shard at LATEST; resolves once each holds its first iterator. */
export async function startRawStreamReader(options: RawStreamReaderOptions): Promise<RawStreamReader> {
  const { reader, streamArn } = options;
  const abort = new AbortController();
  const signal = abort.signal;
  const known = new Set<string>();
  const loops = new Set<Promise<void>>();

  async function openShards(): Promise<string[]> {
    const ids: string[] = [];
    let start: string | undefined;
    do {
      const page = await reader.describeStream({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }, signal);
      for (const shard of page.StreamDescription?.Shards ?? [])
        if (shard.ShardId && shard.SequenceNumberRange?.EndingSequenceNumber === undefined) ids.push(shard.ShardId);
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return ids;
  }

  async function iteratorAt(shardId: string, type: 'LATEST' | 'TRIM_HORIZON', after?: string): Promise<string | undefined> {
    const position = after
      ? ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } as const)
      : ({ ShardIteratorType: type } as const);
    return (await reader.getShardIterator({ StreamArn: streamArn, ShardId: shardId, ...position }, signal)).ShardIterator;
  }

  async function readLoop(shardId: string, first: string | undefined): Promise<void> {
    let iterator = first;
    let last: string | undefined;
    while (iterator && !signal.aborted) {
      try {
        const page = await reader.getRecords({ ShardIterator: iterator, Limit: options.limit }, signal);
        const seenAt = performance.now();
        const records = page.Records ?? [];
        if (records.length > 0) {
          options.onRecords(records, seenAt);
          last = records[records.length - 1]?.dynamodb?.SequenceNumber ?? last;
        }
        iterator = page.NextShardIterator;
        if (records.length < options.limit) await pause(options.pollIntervalMs, signal);
      } catch (error) {
        if (signal.aborted) return;
        options.log(`raw GetRecords failed on ${shardId}: ${String(error)}; new iterator`);
        await pause(options.pollIntervalMs, signal);
        if (signal.aborted) return;
        iterator = await iteratorAt(shardId, 'TRIM_HORIZON', last).catch(() => iterator);
      }
    }
    // The shard ended: its children (listed a little later) hold what follows.
    while (!signal.aborted && (await startShards('TRIM_HORIZON').catch(() => 0)) === 0) await pause(options.pollIntervalMs, signal);
  }

  /** Starts the open shards not read yet; returns how many. */
  async function startShards(type: 'LATEST' | 'TRIM_HORIZON'): Promise<number> {
    const fresh = (await openShards()).filter((id) => !known.has(id));
    for (const id of fresh) known.add(id);
    const iterators = await Promise.all(fresh.map((id) => iteratorAt(id, type)));
    fresh.forEach((id, i) => {
      const loop = readLoop(id, iterators[i]).catch((error: unknown) => {
        if (!signal.aborted) options.log(`raw reader of ${id} failed: ${String(error)}`);
      });
      loops.add(loop);
      void loop.finally(() => loops.delete(loop));
    });
    return fresh.length;
  }

  if ((await startShards('LATEST')) === 0) throw new Error(`stream ${streamArn} has no open shard`);
  return {
    async stop() {
      abort.abort();
      while (loops.size > 0) await Promise.allSettled([...loops]);
    },
  };
}
