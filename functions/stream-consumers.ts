// The table stream's consumers, in one list. The CDK stack gives each an event source mapping
// (infra/stream-consumers.ts) and the local controller a stream poller (embedded/controller.ts),
// both from these entries, so the controller on one machine is fed as the one on AWS is.
//
// Two consumers, because DynamoDB advises no more than two readers per shard
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html): the
// provisioner, and `changes`, which hints agents and runs cleanups.
//
// The stream carries every model of the controller: each consumer acts on a record in the model
// its key names (functions/stream-models.ts), and the controller's own items concern neither.
//
// Giving up on a record (after its retries, or once it is too old) loses nothing for good: both
// are level-triggered and have a periodic resync (the provisioner's reconcile, the cleanup sweep,
// the agents' resync), which is why bounded retries and age are safe; the failure destination
// keeps a note of what was given up on.
import type { DynamoDBRecord } from 'aws-lambda';
import type { ProvisionerDeps } from '#shared/provisioner/deps.js';
import { ATTR } from '#shared/state/engine/keys.js';
import { createChangesHandler, type ChangesDeps } from './changes/handler.js';
import { UNCHANGING_KINDS } from './changes/revision.js';
import { createProvisionerHandler } from './provisioner/handler.js';
import type { StreamBatchHandler } from './stream-batch.js';

export type StreamImage = 'NewImage' | 'OldImage';

/** Which records a consumer is given, by the item attribute naming the entity's kind. */
export type RecordFilter =
  /** Records with an image (of those listed) of this kind. */
  | { kind: string; images: readonly StreamImage[] }
  /** Records with a new or old image of any kind but these: a record only ever of them matches neither. */
  | { allKindsBut: readonly string[] };

export interface StreamConsumerDeps {
  provisioner: ProvisionerDeps;
  changes: ChangesDeps;
}

export type StreamConsumerName = 'provisioner' | 'changes';

export interface StreamConsumer {
  /** The function on AWS (infra/functions.ts), the poller locally. */
  name: StreamConsumerName;
  /** Most records per invocation. */
  batchSize: number;
  /** Retries of a failing batch before its records go to the failure destination. */
  retryAttempts: number;
  /** Older records go to the failure destination undelivered. */
  maxRecordAgeSeconds: number;
  /** Split a failing batch in two and retry each half, to find the failing record sooner. */
  bisectBatchOnError: boolean;
  filter: RecordFilter;
  create(deps: StreamConsumerDeps): StreamBatchHandler;
}

export const STREAM_CONSUMERS: readonly StreamConsumer[] = [
  {
    name: 'provisioner',
    // A new or changed machine (NewImage), or a removed one (REMOVE has only the OldImage).
    filter: { kind: 'machine', images: ['NewImage', 'OldImage'] },
    // Small batches: each waits for its slowest machine, whose start may take all its retries.
    batchSize: 10,
    retryAttempts: 5,
    maxRecordAgeSeconds: 3600,
    bisectBatchOnError: true,
    create: (deps) => createProvisionerHandler(deps.provisioner),
  },
  {
    name: 'changes',
    // Which machines a change concerns depends on the entity (shared/messaging/notify.ts), so
    // every kind but agent presence, written about once a minute per busy machine and of no
    // interest to any agent or cleanup: it costs no invocation at all. Nor the model revision this
    // function moves itself (changes/revision.ts): its records would invoke it again for nothing.
    filter: { allKindsBut: UNCHANGING_KINDS },
    batchSize: 100,
    retryAttempts: 5,
    maxRecordAgeSeconds: 3600,
    bisectBatchOnError: true,
    create: (deps) => createChangesHandler(deps.changes),
  },
];

/** Whether a consumer with this filter is given the record (as Lambda's event filtering decides). */
export function recordMatches(filter: RecordFilter, record: DynamoDBRecord): boolean {
  const kindIn = (image: StreamImage): string | undefined => record.dynamodb?.[image]?.[ATTR.kind]?.S;
  if ('allKindsBut' in filter)
    return (['NewImage', 'OldImage'] as const).some((image) => {
      const kind = kindIn(image);
      return kind !== undefined && !filter.allKindsBut.includes(kind);
    });
  return filter.images.some((image) => kindIn(image) === filter.kind);
}

export function streamConsumer(name: StreamConsumerName): StreamConsumer {
  const consumer = STREAM_CONSUMERS.find((c) => c.name === name);
  if (!consumer) throw new Error(`no stream consumer is named ${name}`);
  return consumer;
}
