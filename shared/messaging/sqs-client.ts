// The one way drover makes an SQS client, on AWS and locally.
//
// Locally the endpoint is the SQS server of embedded/sqs-server.ts. Setting `endpoint` matters
// beyond routing: without it, client-sqs sends each request to the host named in its QueueUrl,
// and the local server's queue URLs name a host that does not resolve.
import { SQSClient } from '@aws-sdk/client-sqs';
import { withoutRequestLogging } from '../aws/without-request-logging.js';

export interface SqsClientOptions {
  /** The local SQS server; absent on AWS, where the region's endpoint and the default credential chain apply. */
  endpoint?: string;
  /** The access key the local SQS server demands (embedded/sqs-access.ts); `local` where it demands none. */
  accessKeyId?: string;
  region?: string;
}

export function createSqsClient(options: SqsClientOptions = {}): SQSClient {
  return withoutRequestLogging(
    new SQSClient({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      // Locally, never the default chain: a developer's real credentials have no business there.
      ...(options.endpoint
        ? { endpoint: options.endpoint, credentials: { accessKeyId: options.accessKeyId ?? 'local', secretAccessKey: 'local' } }
        : {}),
    }),
  );
}

/** The variable that gives a local machine agent its access key to its own queue (embedded/sqs-access.ts). */
export const SQS_ACCESS_KEY_ENV = 'DROVER_SQS_ACCESS_KEY';

/** A queue's name: the last part of its URL, on AWS and locally alike. */
export const queueNameOfUrl = (queueUrl: string): string => queueUrl.split('/').pop() ?? '';
