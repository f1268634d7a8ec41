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
  region?: string;
}

export function createSqsClient(options: SqsClientOptions = {}): SQSClient {
  return withoutRequestLogging(
    new SQSClient({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      // The local server accepts any credentials; fixed ones keep a developer's real ones out of it.
      ...(options.endpoint ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    }),
  );
}
