// One in-memory SQS server per test file, started in beforeAll (fauxqs starts in milliseconds,
// in-process), so files stay independent.
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll } from 'vitest';
import { startSqsServer, type SqsServer } from '../../embedded/sqs-server.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';

export interface TestSqs {
  readonly endpoint: string;
  /** A client bound to this file's server (one per call: URL caches are per client). */
  client(): SQSClient;
}

/** Call at the top of a test file (or describe): the server runs for that file's tests. */
export function useSqsServer(): TestSqs {
  let server: SqsServer | undefined;
  const clients: SQSClient[] = [];
  beforeAll(async () => {
    server = await startSqsServer();
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await server?.stop();
  });
  const started = () => {
    if (!server) throw new Error('the SQS server starts in beforeAll; use it inside a test or hook');
    return server;
  };
  return {
    get endpoint() {
      return started().endpoint;
    },
    client() {
      const c = createSqsClient({ endpoint: started().endpoint, region: 'us-east-1' });
      clients.push(c);
      return c;
    },
  };
}
