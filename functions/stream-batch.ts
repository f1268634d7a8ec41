// The one partial-batch rule of every stream consumer, on Powertools' batch processor
// (https://docs.powertools.aws.dev/lambda/typescript/latest/features/batch/):
// - a record whose handler throws is reported by its SequenceNumber (ReportBatchItemFailures):
//   the event source retries from the lowest one reported, so later records come again and
//   every record handler must be safe to repeat (consumers are level-triggered);
// - a record that can never succeed (not drover's) is skipped by its handler returning, never
//   thrown: failing it would hold the shard until the record expires;
// - a batch with a record that has no SequenceNumber (never seen from DynamoDB Streams) fails
//   whole: such a record cannot be reported, and dropping its failure would lose it.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

export type StreamBatchHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

/** Handles one record; throws to have it retried. */
export type RecordHandler = (record: DynamoDBRecord) => Promise<void>;

export interface StreamBatchOptions {
  /** Records at once (the handler bounds any work it shares between them), or one after another. */
  inParallel: boolean;
}

/**
 * A stream function from a record handler made for each batch: what the records of one batch
 * share (hints already sent, machines already reconciled) lives in the closure `forBatch` returns.
 */
export function streamBatchHandler(
  forBatch: (records: DynamoDBRecord[]) => RecordHandler,
  options: StreamBatchOptions,
): StreamBatchHandler {
  return async (event) => {
    const records = event.Records ?? [];
    const unnamed = records.findIndex((record) => !record.dynamodb?.SequenceNumber);
    if (unnamed !== -1) throw new Error(`stream record ${unnamed} of the batch has no SequenceNumber: the whole batch is retried`);
    // One processor per invocation: it keeps the batch's outcomes, and invocations may overlap.
    const processor = new BatchProcessor(EventType.DynamoDBStreams);
    // Every failure is reported the same way, even when all records failed: no thrown error.
    return processPartialResponse(event, forBatch(records), processor, {
      processInParallel: options.inParallel,
      throwOnFullBatchFailure: false,
    });
  };
}
