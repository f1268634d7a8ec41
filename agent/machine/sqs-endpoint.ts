// Where the local SQS server is now. An agent learns the endpoint from its environment when it
// starts; a local controller restarted while the agent kept running serves SQS on the same port
// when it can, and when it cannot (the port was taken meanwhile) it writes the new endpoint to
// the file named by DROVER_SQS_ENDPOINT_FILE (embedded/sqs-endpoint-file.ts), which the agent
// reads when its receives fail. On AWS there is no such file: SQS does not move.
import { readFileSync } from 'node:fs';

export const SQS_ENDPOINT_FILE_ENV = 'DROVER_SQS_ENDPOINT_FILE';

/** The endpoint in the file, or undefined if there is no file or it holds no http(s) URL. */
export function readSqsEndpoint(file: string | undefined): string | undefined {
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  return /^https?:\/\/\S+$/.test(text) ? text : undefined;
}
