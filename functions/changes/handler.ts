// Lambda `changes`: every change on the table's stream but agent presence (and the model revision
// it writes itself), record by record in stream order, through three steps:
//   1. hints: a hint on the queue of every machine whose view changed (hints.ts);
//   2. cleanups: the next bounded batch of a cleanup document's work (cleanups.ts);
//   3. revision: the model's revision moves, once per batch (revision.ts).
// One function for all three, so the table's stream has two readers (this and the provisioner), as
// DynamoDB advises ("no more than two processes … from the same streams shard at the same time",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html). A record fails
// if either step does, and is retried with both: each step is safe to repeat.
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBRecord } from 'aws-lambda';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import type { NotifierDeps } from '#shared/messaging/notify.js';
import { createStore } from '#shared/state/engine/store.js';
import { environmentOf, type Environment } from '../environment.js';
import { streamBatchHandler, type RecordHandler, type StreamBatchHandler } from '../stream-batch.js';
import { cleanupStep } from './cleanups.js';
import { hintStep } from './hints.js';
import { revisionStep } from './revision.js';

export type ChangesDeps = NotifierDeps & { logger?: Logger };

/** The steps' record handlers, one after another for each record. */
export function changeSteps(deps: ChangesDeps): (records: DynamoDBRecord[]) => RecordHandler {
  const logger = deps.logger ?? new Logger({ serviceName: 'changes' });
  // The revision last: agents' hints and cleanups do not wait on the dashboard's cursor.
  const steps = [hintStep(deps, logger), cleanupStep(deps.store, logger), revisionStep(deps.store, logger)];
  return (records) => {
    const forThisBatch = steps.map((step) => step(records));
    return async (record) => {
      for (const step of forThisBatch) await step(record);
    };
  };
}

/**
 * Records one after another, in the order they were committed, as each step ran when it was a
 * function of its own: the batch's hints go out together with the first record, and a cleanup
 * batch is a few transactions, so a batch stays well inside the function's timeout.
 */
export function createChangesHandler(deps: ChangesDeps): StreamBatchHandler {
  return streamBatchHandler(changeSteps(deps), { inParallel: false });
}

let lambdaHandler: StreamBatchHandler | undefined;

/**
 * The Lambda entry point. Built on the first invocation, not at import, so the local controller
 * and tests can import this module without Lambda's environment.
 */
export const handler: StreamBatchHandler = (event) => {
  lambdaHandler ??= fromEnvironment(environmentOf('changes function'));
  return lambdaHandler(event);
};

function fromEnvironment(env: Environment): StreamBatchHandler {
  const dynamoEndpoint = env.optional('DYNAMODB_ENDPOINT');
  const sqsEndpoint = env.optional('SQS_ENDPOINT');
  return createChangesHandler({
    store: createStore({ table: env.required('TABLE_NAME'), ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}) }),
    sqs: createSqsClient(sqsEndpoint ? { endpoint: sqsEndpoint } : {}),
    controllerId: env.required('CONTROLLER_ID'),
  });
}
