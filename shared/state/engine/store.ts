// What every state operation works against: a DynamoDB client, the table and the model.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withoutRequestLogging } from '../../aws/without-request-logging.js';
import { localCredentials } from './local-credentials.js';
import { SnapshotCache, type Speculation } from './snapshot-cache.js';

export interface Store {
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  table: string;
  model: string;
  now: () => Date;
  /** Items this process last read or committed (snapshot-cache.ts); absent: every read goes to DynamoDB. */
  cache?: SnapshotCache;
  /** Set only on the store an operation's speculative attempt reads through (run-operation.ts). */
  speculation?: Speculation;
}

export interface StoreOptions {
  table: string;
  model?: string;
  /** DynamoDB Local's endpoint; absent on AWS, where the default chain finds credentials. */
  endpoint?: string;
  /** The access key DynamoDB Local demands (the local controller's); `local` where it demands none. */
  accessKeyId?: string;
  region?: string;
  client?: DynamoDBClient;
  now?: () => Date;
  /** False: no snapshot cache, every plan starts from a read (the benchmark's cold case). */
  cache?: boolean;
}

export function createStore(options: StoreOptions): Store {
  const client =
    options.client ??
    withoutRequestLogging(
      new DynamoDBClient({
        region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
        ...(options.endpoint ? { endpoint: options.endpoint, credentials: localCredentials(options.accessKeyId) } : {}),
      }),
    );
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return {
    client,
    doc,
    table: options.table,
    model: options.model ?? 'default',
    now: options.now ?? (() => new Date()),
    ...(options.cache === false ? {} : { cache: new SnapshotCache() }),
  };
}

/**
 * The same table, client and cache, for another model's items (`key`: its ModelName's key). The
 * snapshot cache is shared safely: it is keyed by whole item keys, which carry the model's.
 */
export function storeForModel(store: Store, key: string): Store {
  const { speculation: _ignored, ...rest } = store;
  return { ...rest, model: key };
}

/**
 * The same store, reading without the snapshot cache: for reads of many items that no plan will
 * use (status), which would otherwise push out what operations plan from.
 */
export function withoutCache(store: Store): Store {
  const { cache: _cache, speculation: _speculation, ...rest } = store;
  return rest;
}
