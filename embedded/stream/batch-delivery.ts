// Delivers one batch read from a shard, as a Lambda event source mapping does, and returns only
// when every record in it is settled: delivered, or handed to the failure destination. The shard
// reads on only after that, so records are processed in order and none is skipped.
//
// - Function error (throw, or an unusable response): with bisectBatchOnFunctionError the batch is
//   split in halves, each retried as its own batch, so a poison record ends up alone; a batch of
//   one (or any batch, without bisect) is retried with backoff, and after maxRetryAttempts
//   failures goes to the failure destination. Splitting does not use up the retry budget
//   (halves start afresh), or a large batch could not be narrowed down to its poison record.
// - Partial failure (batchItemFailures): what precedes the lowest reported record is checkpointed
//   and only the rest is retried, as Lambda does. When the reported record has failed
//   maxRetryAttempts + 1 times, only that record goes to the failure destination (Lambda would
//   discard the whole remainder; the handler told us which record is bad, so the others go on).
// - A record older than maximumRecordAgeMs goes to the failure destination without delivery.
import type { DynamoDBRecord } from 'aws-lambda';
import type { InvocationResult } from './lambda-invoke.js';
import { createdAtMs } from './lambda-event.js';
import { backoff, pause } from './pause.js';

export interface DeliveryPolicy {
  /** Retries of a failing batch before its records are discarded; -1 (as in Lambda) or Infinity: no limit. */
  maxRetryAttempts: number;
  bisectBatchOnFunctionError: boolean;
  maximumRecordAgeMs?: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

export interface DeliveryPorts {
  invoke(records: DynamoDBRecord[]): Promise<InvocationResult>;
  /** Sends records to the failure destination; resolves once they are safely there. */
  discard(records: DynamoDBRecord[], error: unknown): Promise<void>;
  /** Records that `record` and everything before it in the shard are processed. */
  checkpoint(record: DynamoDBRecord): Promise<void>;
  /** When it aborts, delivery stops between invocations (throwing the abort reason). */
  signal: AbortSignal;
  now(): number;
}

export class RecordTooOldError extends Error {
  constructor(maximumRecordAgeMs: number) {
    super(`the record is older than maximumRecordAgeMs (${maximumRecordAgeMs} ms)`);
    this.name = 'RecordTooOldError';
  }
}

interface PendingBatch {
  records: DynamoDBRecord[];
  /** Failed invocations of this batch so far (its first record's, for partial failures). */
  failures: number;
}

const last = (records: DynamoDBRecord[]) => records[records.length - 1]!;

/** How many records at the front of the batch are too old (creation times only grow along a shard). */
function expiredPrefix(records: DynamoDBRecord[], maximumRecordAgeMs: number | undefined, now: number): number {
  if (maximumRecordAgeMs === undefined || maximumRecordAgeMs < 0) return 0;
  let count = 0;
  for (const record of records) {
    const createdAt = createdAtMs(record);
    if (createdAt === undefined || now - createdAt <= maximumRecordAgeMs) break;
    count++;
  }
  return count;
}

export async function deliverBatch(batch: DynamoDBRecord[], policy: DeliveryPolicy, ports: DeliveryPorts): Promise<void> {
  const exhausted = (failures: number) => policy.maxRetryAttempts >= 0 && failures > policy.maxRetryAttempts;
  const settleAsFailed = async (records: DynamoDBRecord[], error: unknown) => {
    await ports.discard(records, error);
    await ports.checkpoint(last(records));
  };
  // Sub-batches still to settle, in shard order.
  const queue: PendingBatch[] = batch.length > 0 ? [{ records: batch, failures: 0 }] : [];

  while (queue.length > 0) {
    ports.signal.throwIfAborted();
    const head = queue[0]!;
    const dropHead = (count: number) => {
      head.records = head.records.slice(count);
      head.failures = 0;
      if (head.records.length === 0) queue.shift();
    };

    const expired = expiredPrefix(head.records, policy.maximumRecordAgeMs, ports.now());
    if (expired > 0) {
      await settleAsFailed(head.records.slice(0, expired), new RecordTooOldError(policy.maximumRecordAgeMs!));
      dropHead(expired);
      continue;
    }

    const result = await ports.invoke(head.records);
    if (result.ok) {
      await ports.checkpoint(last(head.records));
      queue.shift();
      continue;
    }

    if (result.failedFrom !== undefined) {
      if (result.failedFrom > 0) {
        await ports.checkpoint(head.records[result.failedFrom - 1]!);
        dropHead(result.failedFrom);
      }
      head.failures++;
      if (exhausted(head.failures)) {
        await settleAsFailed(head.records.slice(0, 1), result.error);
        dropHead(1);
        continue;
      }
    } else {
      head.failures++;
      if (policy.bisectBatchOnFunctionError && head.records.length > 1) {
        const middle = Math.ceil(head.records.length / 2);
        queue.splice(0, 1, { records: head.records.slice(0, middle), failures: 0 }, { records: head.records.slice(middle), failures: 0 });
        continue;
      }
      if (exhausted(head.failures)) {
        await settleAsFailed(head.records, result.error);
        queue.shift();
        continue;
      }
    }
    await pause(backoff(head.failures, policy.retryDelayMs, policy.maxRetryDelayMs), ports.signal);
  }
}
