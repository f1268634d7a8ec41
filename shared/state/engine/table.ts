// The table's definition, shared by the local controller, the tests and (by its names) the CDK
// stack. Streams carry new and old images: the stream consumers (functions/stream-consumers.ts) need both.
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { ATTR, INDEX } from './keys.js';

export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: ATTR.pk, AttributeType: 'S' },
      { AttributeName: ATTR.sk, AttributeType: 'S' },
      { AttributeName: ATTR.collectionPk, AttributeType: 'S' },
      { AttributeName: ATTR.collectionSk, AttributeType: 'S' },
      { AttributeName: ATTR.stuckPk, AttributeType: 'S' },
      { AttributeName: ATTR.stuckSince, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: ATTR.pk, KeyType: 'HASH' },
      { AttributeName: ATTR.sk, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: INDEX.byCollection,
        KeySchema: [
          { AttributeName: ATTR.collectionPk, KeyType: 'HASH' },
          { AttributeName: ATTR.collectionSk, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
      {
        IndexName: INDEX.stuck,
        KeySchema: [
          { AttributeName: ATTR.stuckPk, KeyType: 'HASH' },
          { AttributeName: ATTR.stuckSince, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}

/** Creates the table if it does not exist yet (idempotent: safe on every start). */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (e) {
    if (!(e instanceof ResourceInUseException)) throw e;
  }
  for (let i = 0; i < 100; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}
