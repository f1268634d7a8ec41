// The local API: a plain HTTP server on 127.0.0.1 that turns each request into the very event
// API Gateway (HTTP API, payload v2) hands the Lambda, and the handler's result back into a
// response — so the local controller runs the same handler as AWS.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** Charm archives are the largest bodies; API Gateway's own limit is 10 MB. */
const MAX_BODY = 10 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function toEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: `${now.getTime()}-${Math.random().toString(36).slice(2)}`,
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: body.length > 0,
    ...(body.length > 0 ? { body: body.toString('base64') } : {}),
  };
}

export interface ApiServer {
  url: string;
  close(): Promise<void>;
}

export async function startApiServer(handler: HttpHandler, options: { port?: number } = {}): Promise<ApiServer> {
  const server: Server = createServer(async (req, res) => {
    try {
      const result = await handler(toEvent(req, await readBody(req)));
      const body = result.body ?? '';
      res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
      res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
    } catch (e) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'invalid-argument', message: (e as Error).message } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
