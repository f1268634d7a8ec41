// The SDK's request logging is gone from the clients on drover's hot paths
// (shared/aws/without-request-logging.ts), and the name it is removed by is still the SDK's: a
// client made as the SDK makes it has the middleware, so a rename would fail here, not pass silently.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SDK_LOGGER_MIDDLEWARE } from '#shared/aws/without-request-logging.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { createStore } from '#shared/state/engine/store.js';

const names = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((m) => m.split(' ')[0]);

describe('clients without the SDK request logging', () => {
  it('the SDK puts the middleware on its clients under the name removed', () => {
    expect(names(new DynamoDBClient({ region: 'local' }))).toContain(SDK_LOGGER_MIDDLEWARE);
    expect(names(new SQSClient({ region: 'local' }))).toContain(SDK_LOGGER_MIDDLEWARE);
  });

  it("a store's DynamoDB client and an SQS client from createSqsClient do not have it", () => {
    const store = createStore({ table: 't', region: 'local', endpoint: 'http://127.0.0.1:1' });
    expect(names(store.client)).not.toContain(SDK_LOGGER_MIDDLEWARE);
    expect(names(createSqsClient({ endpoint: 'http://127.0.0.1:1', region: 'local' }))).not.toContain(SDK_LOGGER_MIDDLEWARE);
  });
});
