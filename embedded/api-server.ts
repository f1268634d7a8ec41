// The local API: a plain HTTP server on 127.0.0.1 that turns each request into the very event
// API Gateway (HTTP API, payload v2) hands the Lambda, and the handler's result back into a
// response — so the local controller runs the same handler as AWS.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { bodyTooLarge, MAX_REQUEST_BODY_BYTES } from '#shared/api/fields.js';
import { errorMessage } from '#shared/domain/errors.js';

export type HttpHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
/** A request the server hands over whole, before reading its body; false: not this route's. */
export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

class BodyTooLarge extends Error {}

/**
 * The body, read only as far as API Gateway would take it (charm archives are the largest bodies):
 * a declared length over the bound is refused before a byte is read, and a body that runs over
 * it stops being read there, so no client can make the controller hold more.
 */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_REQUEST_BODY_BYTES) throw new BodyTooLarge(bodyTooLarge(declared));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BODY_BYTES) throw new BodyTooLarge(bodyTooLarge(size));
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

/**
 * `direct`: requests served as they are, before the body is read, where S3 stands behind the API
 * on AWS (embedded/charm-files.ts): charm archives, streamed whatever their size.
 */
export async function startApiServer(handler: HttpHandler, options: { port?: number; direct?: DirectRoute } = {}): Promise<ApiServer> {
  const server: Server = createServer(async (req, res) => {
    try {
      if (options.direct && (await options.direct(req, res))) return;
      const result = await handler(toEvent(req, await readBody(req)));
      const body = result.body ?? '';
      res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
      res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
    } catch (e) {
      // A direct route that failed part way through its answer: the client sees it cut off.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // The handler answers every error itself; what is left is the body: too large, or cut off.
      // `connection: close`, since the rest of a body too large is not read.
      res.writeHead(e instanceof BodyTooLarge ? 413 : 400, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { code: 'invalid-argument', message: errorMessage(e) } }));
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
