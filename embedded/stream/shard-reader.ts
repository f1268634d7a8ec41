// Reads one shard in order, gathers batches, and hands each to `deliver`, which returns once the
// batch is settled; the shard's iterator moves on only then. Recovers from what DynamoDB Streams
// throws at a long-running reader:
// - ExpiredIteratorException (iterators live 15 minutes): a new iterator AFTER_SEQUENCE_NUMBER of
//   the last record read, so nothing is lost or read twice;
// - TrimmedDataAccessException (records older than 24 h are trimmed): go on from the oldest record
//   still there; the trimmed ones are gone and this is logged;
// - a closed shard (no NextShardIterator): deliver what is left and report the end, so that the
//   poller can start the shard's children.
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { backoff, pause, wakeablePause } from './pause.js';
import { errorName, type StreamReader } from './stream-reader.js';

/** GetRecords returns at most 1000 records per call. */
const MAX_RECORDS_PER_CALL = 1000;

export type ShardStart = { type: 'TRIM_HORIZON' } | { type: 'LATEST' } | { type: 'AFTER'; sequenceNumber: string };

export interface ShardReaderOptions {
  reader: StreamReader;
  streamArn: string;
  shardId: string;
  start: ShardStart;
  batchSize: number;
  maxBatchingWindowMs: number;
  /** The pause after a read that found the shard's tip (while writes come, for a nudged reader). */
  pollIntervalMs: number;
  /**
   * The pause at the tip once no write has been announced (`nudge`) for this long: a nudge ends
   * it. pollIntervalMs when absent, as a reader that is never nudged must poll.
   */
  idlePollIntervalMs?: number;
  toRecord(record: _Record): DynamoDBRecord;
  /** Lambda's event filtering: a record this rejects is passed over, never delivered. */
  keep?(record: DynamoDBRecord): boolean;
  deliver(records: DynamoDBRecord[]): Promise<void>;
  /** The poller's drain generation; see caughtUpGeneration. */
  generation(): number;
  onProgress(): void;
  log(message: string, details: Record<string, unknown>): void;
  signal: AbortSignal;
}

export interface ShardReader {
  /** Resolves once the first iterator is held (a LATEST start is fixed from then on). */
  ready: Promise<void>;
  /** 'ended': the shard is closed and every record in it settled; 'stopped': the poller stopped. */
  done: Promise<'ended' | 'stopped'>;
  /**
   * The highest drain generation g such that a GetRecords call begun at generation g found
   * nothing new while nothing was pending: every record written before drain() was called for g
   * has then been settled.
   */
  caughtUpGeneration(): number;
  /** Ends the wait between polls now (drain() wants a fresh look at the shard). */
  wake(): void;
  /**
   * A write may have added records. After a quiet spell, read at once (no sooner than
   * pollIntervalMs after the last read began); then poll every pollIntervalMs while writes come.
   */
  nudge(): void;
}

export function readShard(options: ShardReaderOptions): ShardReader {
  const { reader, streamArn, shardId, signal } = options;
  let start: ShardStart = options.start;
  // The last sequence number read from the shard (settled or buffered): where a new iterator starts.
  let cursor: string | undefined = start.type === 'AFTER' ? start.sequenceNumber : undefined;
  let caughtUp = 0;
  let wakePoll = () => {};
  // When the last GetRecords call began, and when the last write was announced.
  let lastCallAt = 0;
  let lastNudgeAt = -Infinity;
  let shortenWait = (_ms: number) => {};
  const idlePollIntervalMs = options.idlePollIntervalMs ?? options.pollIntervalMs;
  const untilPollAllowed = () => Math.max(0, lastCallAt + options.pollIntervalMs - Date.now());
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  /** A fresh iterator at the cursor; undefined when stopping or when the shard no longer exists. */
  async function acquireIterator(): Promise<string | undefined> {
    for (let attempt = 1; !signal.aborted; attempt++) {
      const position = cursor
        ? ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: cursor } as const)
        : ({ ShardIteratorType: start.type === 'LATEST' ? 'LATEST' : 'TRIM_HORIZON' } as const);
      try {
        const { ShardIterator } = await reader.getShardIterator({ StreamArn: streamArn, ShardId: shardId, ...position }, signal);
        return ShardIterator;
      } catch (error) {
        if (signal.aborted) return undefined;
        const name = errorName(error);
        if (name === 'TrimmedDataAccessException' && cursor) {
          options.log(
            'records after the checkpoint were trimmed from the stream before being read; continuing from the oldest record left',
            {
              shardId,
              after: cursor,
            },
          );
          cursor = undefined;
          start = { type: 'TRIM_HORIZON' };
          continue;
        }
        if (name === 'ResourceNotFoundException') {
          options.log('the shard no longer exists (trimmed); treating it as ended', { shardId });
          return undefined;
        }
        options.log('cannot get a shard iterator; retrying', { shardId, error: String(error) });
        await pause(backoff(attempt, options.pollIntervalMs, 5_000), signal);
      }
    }
    return undefined;
  }

  async function run(): Promise<'ended' | 'stopped'> {
    let iterator = await acquireIterator();
    markReady();
    if (signal.aborted) return 'stopped';
    let ended = iterator === undefined;
    const buffer: DynamoDBRecord[] = [];
    let windowStartedAt: number | undefined;
    let failedCalls = 0;

    while (!signal.aborted) {
      // The last call returned less than it could: the shard holds nothing more for now.
      let atTip = false;
      if (!ended && buffer.length < options.batchSize) {
        const generation = options.generation();
        // Filtered, a call may keep few of the records it reads: read as many as a call returns.
        const limit = options.keep ? MAX_RECORDS_PER_CALL : Math.min(MAX_RECORDS_PER_CALL, options.batchSize - buffer.length);
        lastCallAt = Date.now();
        try {
          const page = await reader.getRecords({ ShardIterator: iterator, Limit: limit }, signal);
          failedCalls = 0;
          const records = page.Records ?? [];
          for (const record of records) {
            const lambdaRecord = options.toRecord(record);
            if (!options.keep || options.keep(lambdaRecord)) buffer.push(lambdaRecord);
          }
          const lastRead = records[records.length - 1]?.dynamodb?.SequenceNumber;
          if (lastRead) cursor = lastRead;
          iterator = page.NextShardIterator;
          ended = iterator === undefined;
          atTip = records.length < limit;
          if (records.length === 0 && buffer.length === 0) {
            caughtUp = Math.max(caughtUp, generation);
            options.onProgress();
          }
        } catch (error) {
          if (signal.aborted) break;
          const name = errorName(error);
          // An expired iterator or trimmed data is expected now and then: a new iterator at once.
          // Anything else (network, throttling beyond the SDK's retries, an iterator the service
          // rejects), or the same again and again: wait, then a new iterator at the cursor.
          const expected = (name === 'ExpiredIteratorException' || name === 'TrimmedDataAccessException') && failedCalls === 0;
          failedCalls++;
          if (!expected) {
            options.log('GetRecords failed; retrying with a new iterator', { shardId, error: String(error) });
            await pause(backoff(failedCalls, options.pollIntervalMs, 5_000), signal);
          }
          iterator = await acquireIterator();
          ended = iterator === undefined;
          continue;
        }
      }

      if (buffer.length > 0) {
        windowStartedAt ??= Date.now();
        const windowOver = Date.now() - windowStartedAt >= options.maxBatchingWindowMs;
        if (buffer.length >= options.batchSize || windowOver || ended) {
          await options.deliver(buffer.splice(0, options.batchSize));
          windowStartedAt = buffer.length > 0 ? Date.now() : undefined;
          options.onProgress();
          continue; // read on at once: there may be more behind this batch
        }
      } else if (ended) {
        return 'ended';
      }

      // A drain() waiting on this shard gets a fresh read now rather than after the interval.
      const drainWaiting = options.generation() > caughtUp && buffer.length === 0;
      if (atTip && !drainWaiting) {
        const untilWindowEnds = windowStartedAt === undefined ? Infinity : windowStartedAt + options.maxBatchingWindowMs - Date.now();
        // While writes come, poll every pollIntervalMs, as a reader that is never nudged does: what
        // a poll gathers is one batch, and a batch is what the changes function de-duplicates by.
        // A write after a quiet spell is read at once.
        const active = Date.now() - lastNudgeAt < idlePollIntervalMs;
        const wait = wakeablePause(Math.min(active ? options.pollIntervalMs : idlePollIntervalMs, untilWindowEnds), signal);
        wakePoll = wait.wake;
        shortenWait = wait.wakeWithin;
        await wait.promise;
        wakePoll = () => {};
        shortenWait = () => {};
      }
    }
    return 'stopped';
  }

  const done = run().catch((error: unknown) => {
    markReady();
    if (signal.aborted) return 'stopped' as const;
    throw error;
  });
  const nudge = () => {
    // The first write after a quiet spell ends the idle wait; later ones change nothing.
    if (Date.now() - lastNudgeAt >= idlePollIntervalMs) shortenWait(untilPollAllowed());
    lastNudgeAt = Date.now();
  };
  return { ready, done, caughtUpGeneration: () => caughtUp, wake: () => wakePoll(), nudge };
}
