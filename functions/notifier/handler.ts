// Lambda `notifier`: table stream → a hint on the queue of every machine whose view changed.
//
// Partial batch failure (ReportBatchItemFailures): a record that could not be delivered is
// reported by its SequenceNumber, so the event source retries from there instead of replaying
// the whole batch forever; the others are still processed, as duplicates of hints are harmless.
// A record that is not drover's (no kind, no image) can never succeed, so it is logged and
// skipped rather than failed — failing it would block the shard.
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBBatchItemFailure, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createSqsClient } from '../../shared/messaging/sqs-client.js';
import { notify, SentHints, type NotifierDeps } from '../../shared/messaging/notify.js';
import { createStore } from '../../shared/state/store.js';
import { imagesOf } from '../../shared/state/stream-record.js';

export type NotifierHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

export function createNotifierHandler(deps: NotifierDeps & { logger?: Logger }): NotifierHandler {
  const logger = deps.logger ?? new Logger({ serviceName: 'drover-notifier' });
  return async (event) => {
    const batchItemFailures: DynamoDBBatchItemFailure[] = [];
    const sent = new SentHints();
    for (const record of event.Records) {
      const sequenceNumber = record.dynamodb?.SequenceNumber;
      const context = { eventID: record.eventID, eventName: record.eventName, sequenceNumber };
      try {
        const outcome = await notify(deps, imagesOf(record), sent);
        if (outcome.kind === 'malformed') logger.warn('skipping a record that is not a drover entity', { ...context, why: outcome.why });
        else if (outcome.kind === 'sent') logger.debug('hinted', { ...context, hint: outcome.hint, machines: outcome.machines });
      } catch (error) {
        logger.error('record failed; reported for retry', { ...context, error: error as Error });
        // Without a sequence number the record cannot be named; fail the batch so it is retried.
        if (!sequenceNumber) throw error;
        batchItemFailures.push({ itemIdentifier: sequenceNumber });
      }
    }
    return { batchItemFailures };
  };
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`notifier: environment variable ${name} is not set`);
  return value;
}

let fromEnvironment: NotifierHandler | undefined;

/**
 * The Lambda entry point. Built on the first invocation, not at import, so the local controller
 * and tests can import this module without Lambda's environment.
 */
export const handler: NotifierHandler = (event) => {
  fromEnvironment ??= createNotifierHandler({
    store: createStore({
      table: requiredEnv('TABLE_NAME'),
      ...(process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {}),
    }),
    sqs: createSqsClient(process.env.SQS_ENDPOINT ? { endpoint: process.env.SQS_ENDPOINT } : {}),
    controllerId: requiredEnv('CONTROLLER_ID'),
  });
  return fromEnvironment(event);
};
