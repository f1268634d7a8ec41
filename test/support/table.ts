// Each test gets its own table in its file's DynamoDB Local (test/support/dynamodb.ts), so tests
// never see each other's state and files can run in parallel.
import { randomUUID } from 'node:crypto';
import { ensureTable } from '#shared/state/engine/table.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { dynamoEndpoint } from './dynamodb.js';

export async function freshStore(options: { now?: () => Date } = {}): Promise<Store> {
  const store = createStore({ table: `test-${randomUUID()}`, endpoint: await dynamoEndpoint(), region: 'local', ...options });
  await ensureTable(store.client, store.table);
  return store;
}
