// The local controller's SQS: fauxqs (npm), in this process, spoken to with the same
// @aws-sdk/client-sqs as real SQS. Queues live in memory: hints are disposable (state is the
// truth; a resync covers anything lost), so nothing needs to survive a restart.
//
// We use fauxqs's buildApp and listen ourselves, because its startFauxqs listens on 0.0.0.0 and
// a controller's message bus has no business on other interfaces.
//
// Queue URLs from fauxqs name `sqs.<region>.localhost:<port>`, which does not resolve; fauxqs
// also identifies a queue by its exact URL. So clients must set `endpoint` (see
// shared/messaging/sqs-client.ts) and pass queue URLs back exactly as fauxqs returned them.
import { buildApp } from 'fauxqs';

export interface SqsServer {
  /** `http://127.0.0.1:<port>`: the SQS client's `endpoint`. */
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export async function startSqsServer(options: { port?: number } = {}): Promise<SqsServer> {
  const app = buildApp({ logger: false });
  // Port 0: the OS picks a free port, so parallel test files never collide.
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') {
    await app.close();
    throw new Error('the SQS server did not report a TCP port');
  }
  let stopped: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    // Closing cancels pending long polls (fauxqs forces connections closed), so stop is quick.
    stop: () => (stopped ??= app.close().then(() => undefined)),
  };
}
