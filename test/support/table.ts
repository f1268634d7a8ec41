// Each test file gets its own table in the run's DynamoDB Local, so files never see each other's
// state and can run in parallel.
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { ensureTable } from '../../shared/state/engine/table.js';
import { createStore, type Store } from '../../shared/state/engine/store.js';

export async function freshStore(options: { now?: () => Date } = {}): Promise<Store> {
  const store = createStore({ table: `test-${randomUUID()}`, endpoint: inject('dynamoEndpoint'), region: 'local', ...options });
  await ensureTable(store.client, store.table);
  return store;
}
