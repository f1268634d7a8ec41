// The failure destination of a local poller: records given up on (retried enough, or too old)
// are handed to it, and a destination that fails is tried again with a growing pause while the
// shard waits, so no record is ever dropped silently (on AWS: the mapping's OnFailure queue).
import type { DynamoDBRecord } from 'aws-lambda';
import { sequenceNumberOf } from './lambda-event.js';
import { backoff, pause } from './pause.js';

/** What the failure destination receives: records given up on, and why. */
export interface StreamFailure {
  records: DynamoDBRecord[];
  error: unknown;
  shardId: string;
  streamArn: string;
}

export async function sendToFailureDestination(
  destination: (failure: StreamFailure) => Promise<void>,
  failure: StreamFailure,
  context: {
    retryDelayMs: number;
    maxRetryDelayMs: number;
    signal: AbortSignal;
    log: (message: string, details: Record<string, unknown>) => void;
  },
): Promise<void> {
  const { shardId, records, error } = failure;
  context.log('giving up on stream records: sending them to the failure destination', {
    shardId,
    sequenceNumbers: records.map(sequenceNumberOf),
    error: String(error),
  });
  for (let attempt = 1; ; attempt++) {
    context.signal.throwIfAborted();
    try {
      return await destination(failure);
    } catch (destinationError) {
      context.log('the failure destination failed; retrying (the shard waits)', { shardId, error: String(destinationError) });
      await pause(backoff(attempt, context.retryDelayMs, context.maxRetryDelayMs), context.signal);
    }
  }
}
