// The local controller's SQS: fauxqs (npm), in this process, spoken to with the same
// @aws-sdk/client-sqs as real SQS. Queues live in memory: hints are disposable (state is the
// truth; a resync covers anything lost), so no message needs to survive a restart. The queues
// are re-created at start (embedded/resume-agents.ts) and by an agent that finds its own missing
// (agent/machine/hint-receiver.ts).
//
// We use fauxqs's buildApp and listen ourselves, because its startFauxqs listens on 0.0.0.0 and
// a controller's message bus has no business on other interfaces.
//
// Queue URLs from fauxqs name `sqs.<region>.localhost:<port>`, which does not resolve; fauxqs
// also identifies a queue by its exact URL. So clients must set `endpoint` (see
// shared/messaging/sqs-client.ts) and pass queue URLs back exactly as fauxqs returned them.
import { buildApp } from 'fauxqs';
import { sqsRefusal, type SqsAccess } from './sqs-access.js';

export interface SqsServer {
  /** `http://127.0.0.1:<port>`: the SQS client's `endpoint`. */
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export interface SqsServerOptions {
  /** The port used last time; any free one when absent or taken. */
  port?: number;
  /** Only the controller's access key and its agents' queue keys are let in (sqs-access.ts); anyone when absent. */
  access?: SqsAccess;
}

async function listen(port: number, access: SqsAccess | undefined): Promise<SqsServer> {
  const app = buildApp({ logger: false });
  if (access !== undefined)
    // After parsing, so an agent's key can be held to the queue its request names; for every
    // route fauxqs has, its inspection and S3 ones included.
    app.addHook('preHandler', async (request, reply) => {
      const target = request.headers['x-amz-target'];
      const refusal = sqsRefusal(access, {
        authorization: request.headers.authorization,
        target: typeof target === 'string' ? target : undefined,
        body: request.body,
      });
      if (refusal)
        return reply
          .status(refusal.status)
          .header('content-type', 'application/x-amz-json-1.0')
          .header('x-amzn-query-error', `${refusal.type.split('#')[1]};Sender`)
          .send(JSON.stringify({ __type: refusal.type, message: refusal.message }));
    });
  try {
    await app.listen({ port, host: '127.0.0.1' });
  } catch (e) {
    await app.close().catch(() => undefined);
    throw e;
  }
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

/**
 * Listens on `port` (the local controller passes the one it used last time, so agents that kept
 * running across its restart find it again), or on any free port when `port` is taken by now or
 * not given. Port 0: the OS picks a free port, so parallel test files never collide.
 */
export async function startSqsServer(options: SqsServerOptions = {}): Promise<SqsServer> {
  if (!options.port) return listen(0, options.access);
  try {
    return await listen(options.port, options.access);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return listen(0, options.access);
  }
}
