// The table's stream → the provisioner, cleanup and notifier, by event source mappings that keep
// the contract the local stream poller imitates (embedded/): batches, partial batch responses,
// bisect on error, bounded retries — and, once a record has been retried enough or is too old,
// a note in the failure destination rather than a shard blocked forever. Nothing is lost by
// giving up on a record: every consumer is level-triggered and has a periodic resync (the
// provisioner's reconcile, the cleanup sweep, the agents' resync), which is why a bounded age
// and retry count are safe.
import { Duration, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ATTR } from '../shared/state/keys.js';

export type ConsumerKey = 'provisioner' | 'cleanup' | 'notifier';

export interface ConsumerSettings {
  batchSize: number;
  retryAttempts: number;
  maxRecordAge: Duration;
  /** Entity kinds (the item attribute `entity`) the function is given; all when absent. */
  kinds?: { kind: string; images: ('NewImage' | 'OldImage')[] };
  /** Or: every kind but this one (a record matches if either image is of another kind). */
  allKindsBut?: string;
}

export const CONSUMERS: Record<ConsumerKey, ConsumerSettings> = {
  // Machine items only: a new or changed machine (NewImage), or a removed one (REMOVE has only
  // the OldImage). Small batches: one machine's start may take its retries.
  provisioner: {
    batchSize: 10,
    retryAttempts: 5,
    maxRecordAge: Duration.hours(1),
    kinds: { kind: 'machine', images: ['NewImage', 'OldImage'] },
  },
  // Cleanup documents that exist now (a REMOVE means the cleanup finished: nothing to do).
  cleanup: {
    batchSize: 10,
    retryAttempts: 5,
    maxRecordAge: Duration.hours(1),
    kinds: { kind: 'cleanup', images: ['NewImage'] },
  },
  // Every kind: which machines a change concerns depends on the entity (notify.ts decides) —
  // except agent presence, written about once a minute per busy machine and of no interest to
  // any agent, so it costs no invocation at all.
  notifier: {
    batchSize: 100,
    retryAttempts: 5,
    maxRecordAge: Duration.hours(1),
    allKindsBut: 'presence',
  },
};

export interface StreamConsumersProps {
  table: dynamodb.ITable;
  functions: Record<ConsumerKey, lambda.IFunction>;
}

export class StreamConsumers extends Construct {
  /**
   * Where a mapping notes the batches it gave up on (shard and sequence numbers, not the
   * records): an alarm watches its depth. Not named `drover-<controller>-*`, so no function
   * that manages machine queues by that prefix can touch it.
   */
  readonly failureQueue: sqs.Queue;
  readonly mappings: Record<ConsumerKey, DynamoEventSource>;

  constructor(scope: Construct, id: string, props: StreamConsumersProps) {
    super(scope, id);
    this.failureQueue = new sqs.Queue(this, 'StreamFailures', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.failureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the failure destination of the stream mappings; nothing consumes it automatically, an alarm on its depth calls an operator.',
    });

    const mappings: Partial<Record<ConsumerKey, DynamoEventSource>> = {};
    for (const [key, settings] of Object.entries(CONSUMERS) as [ConsumerKey, ConsumerSettings][]) {
      const source = new DynamoEventSource(props.table, {
        // From the oldest record the stream still has: consumers are idempotent, and a mapping
        // (re)created after writes must not skip them.
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: settings.batchSize,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: settings.retryAttempts,
        maxRecordAge: settings.maxRecordAge,
        onFailure: new SqsDlq(this.failureQueue),
        ...(settings.kinds ? { filters: filtersFor(settings.kinds) } : {}),
        ...(settings.allKindsBut ? { filters: filtersExcluding(settings.allKindsBut) } : {}),
      });
      props.functions[key].addEventSource(source);
      mappings[key] = source;
    }
    this.mappings = mappings as Record<ConsumerKey, DynamoEventSource>;
  }

  /** cdk-nag's finding on the mapping's stream grant, acknowledged on the consuming function's role. */
  static acknowledgeStreamGrant(role: Construct): void {
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "dynamodb:ListStreams (granted by the event source mapping) supports no resource-level permissions; every other stream action is on this table's stream ARN.",
    });
  }
}

/** A record whose new or old image is of any other kind; one that is only ever `kind` matches neither. */
function filtersExcluding(kind: string): Array<{ [key: string]: unknown }> {
  return (['NewImage', 'OldImage'] as const).map((image) =>
    lambda.FilterCriteria.filter({ dynamodb: { [image]: { [ATTR.kind]: { S: lambda.FilterRule.notEquals(kind) } } } }),
  );
}

/** One filter per image: Lambda passes a record that matches any of them. */
function filtersFor(kinds: NonNullable<ConsumerSettings['kinds']>): Array<{ [key: string]: unknown }> {
  return kinds.images.map((image) =>
    lambda.FilterCriteria.filter({ dynamodb: { [image]: { [ATTR.kind]: { S: lambda.FilterRule.isEqual(kinds.kind) } } } }),
  );
}
