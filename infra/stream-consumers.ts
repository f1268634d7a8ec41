// The table's stream → one event source mapping per consumer in functions/stream-consumers.ts,
// with that entry's batch size, retries, maximum age, bisection and filter (the local controller's
// pollers read the same entries), partial batch responses, and a failure destination: once a
// record has been retried enough or is too old, a note there rather than a shard blocked forever.
import { Duration } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SendOnlyQueueDlq } from './failure-queues.js';
import { STREAM_CONSUMERS, type RecordFilter, type StreamConsumerName } from '../functions/stream-consumers.js';
import { ATTR } from '#shared/state/engine/keys.js';

export interface StreamConsumersProps {
  table: dynamodb.ITable;
  functions: Record<StreamConsumerName, lambda.IFunction>;
}

export class StreamConsumers extends Construct {
  /**
   * Where a mapping notes the batches it gave up on (shard and sequence numbers, not the
   * records): an alarm watches its depth. Not named `drover-<controller>-*`, so no function
   * that manages machine queues by that prefix can touch it.
   */
  readonly failureQueue: sqs.Queue;
  readonly mappings: Record<StreamConsumerName, DynamoEventSource>;

  constructor(scope: Construct, id: string, props: StreamConsumersProps) {
    super(scope, id);
    this.failureQueue = new sqs.Queue(this, 'StreamFailures', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });

    const mappings: Partial<Record<StreamConsumerName, DynamoEventSource>> = {};
    for (const consumer of STREAM_CONSUMERS) {
      const source = new DynamoEventSource(props.table, {
        // From the oldest record the stream still has: consumers are idempotent, and a mapping
        // (re)created after writes must not skip them.
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: consumer.batchSize,
        bisectBatchOnError: consumer.bisectBatchOnError,
        reportBatchItemFailures: true,
        retryAttempts: consumer.retryAttempts,
        maxRecordAge: Duration.seconds(consumer.maxRecordAgeSeconds),
        onFailure: new SendOnlyQueueDlq(this.failureQueue),
        filters: filterCriteria(consumer.filter),
      });
      props.functions[consumer.name].addEventSource(source);
      mappings[consumer.name] = source;
    }
    this.mappings = mappings as Record<StreamConsumerName, DynamoEventSource>;
  }
}

/**
 * A consumer's filter as Lambda's filter criteria: one pattern per image, and Lambda passes a
 * record that matches any of them (functions/stream-consumers.ts `recordMatches` decides the same).
 */
export function filterCriteria(filter: RecordFilter): Array<{ [key: string]: unknown }> {
  const images = 'allKindsBut' in filter ? (['NewImage', 'OldImage'] as const) : filter.images;
  // FilterRule.notEquals takes one value; Lambda's `anything-but` takes a list.
  const rule = 'allKindsBut' in filter ? [{ 'anything-but': [...filter.allKindsBut] }] : lambda.FilterRule.isEqual(filter.kind);
  return images.map((image) => lambda.FilterCriteria.filter({ dynamodb: { [image]: { [ATTR.kind]: { S: rule } } } }));
}
