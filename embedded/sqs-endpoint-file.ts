// Tells machine agents where the local SQS server is. They get the endpoint in their environment
// when they start; one that kept running across a controller restart reads this file when its
// receives fail (agent/machine/sqs-endpoint.ts), which matters only when the server could not
// have its old port back. The file holds the endpoint URL and nothing else.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const sqsEndpointFile = (dataDir: string) => join(dataDir, 'sqs-endpoint');

export function writeSqsEndpoint(dataDir: string, endpoint: string): void {
  const path = sqsEndpointFile(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  // Written whole, then renamed: an agent never reads half an endpoint.
  writeFileSync(temporary, `${endpoint}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}
