// One in-memory DynamoDB Local per test file, started when the file first asks for it and stopped
// after its last test.
//
// Why not one for the whole run: DynamoDB Local grows dearer with everything a run has made in
// it. agent-authorization.test.ts took 43 s alone and 259 s late in a full run; four copies of it
// run one after another on one instance used 2.5× the CPU of four run alone. A fresh instance
// costs about 2.5 s of one core, and only files that use DynamoDB pay it.
import { afterAll } from 'vitest';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../embedded/dynamodb-local.js';

let started: Promise<DynamoDbLocal> | undefined;

// Registered when a test file imports this module (directly or through table.ts), so it runs
// after that file's tests; a file that never asked starts nothing and stops nothing.
afterAll(async () => {
  const db = await started;
  started = undefined;
  await db?.stop();
});

/** This file's DynamoDB Local endpoint, starting it on the first call. */
export async function dynamoEndpoint(): Promise<string> {
  started ??= startDynamoDbLocal();
  return (await started).endpoint;
}
