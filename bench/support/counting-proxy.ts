// A counting HTTP proxy in front of the local SQS server: the agents' SQS requests, by action and
// queue, for the idle-cost benchmark. The SDK speaks SQS's JSON protocol: the action is the
// X-Amz-Target header (`AmazonSQS.ReceiveMessage`), the queue the body's QueueUrl.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  endpoint: string;
  /** Requests so far: `${action} ${queueUrl}` → count. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = String(req.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
      let queue = '';
      try {
        queue = (JSON.parse(body.toString('utf8')) as { QueueUrl?: string }).QueueUrl ?? '';
      } catch {
        // not JSON: counted under no queue
      }
      const key = `${action} ${queue}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const out = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
