// What every state operation works against: a DynamoDB client, the table and the model.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localCredentials } from './dynamodb-local.js';

export interface Store {
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  table: string;
  model: string;
  now: () => Date;
}

export interface StoreOptions {
  table: string;
  model?: string;
  /** DynamoDB Local's endpoint; absent on AWS, where the default chain finds credentials. */
  endpoint?: string;
  region?: string;
  client?: DynamoDBClient;
  now?: () => Date;
}

export function createStore(options: StoreOptions): Store {
  const client =
    options.client ??
    new DynamoDBClient({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint, credentials: localCredentials() } : {}),
    });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client, doc, table: options.table, model: options.model ?? 'default', now: options.now ?? (() => new Date()) };
}
