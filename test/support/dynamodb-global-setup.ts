// Starts one in-memory DynamoDB Local for the whole test run and tells every test file where it
// is. Test files create their own tables (see test/support/table.ts).
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../embedded/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const db = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', db.endpoint);
  return () => db.stop();
}
