// An API Gateway event (test/support/api-events.ts) sent as the HTTP request it stands for, to a
// running controller's API server, which turns it back into the same event (embedded/api-server.ts).
import { maxHeaderSize, request } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MAX_REQUEST_BODY_BYTES } from '#shared/api/fields.js';

export interface HttpAnswer {
  statusCode: number;
  body: string;
  /** The server refused the request by its length and closed the connection before the client could read its answer. */
  cutOff?: true;
}

const cutOff = (statusCode: number, e: NodeJS.ErrnoException): HttpAnswer => ({
  statusCode,
  body: JSON.stringify({ error: { code: 'invalid-argument', message: `cut off unread: ${e.code}` } }),
  cutOff: true,
});

/**
 * Sends `event` to `base`; `extraHeaders` are added (a model, a controller's token). Rejects when
 * the request cannot be sent as it is (a path Node refuses to write) or the connection fails.
 */
export function sendOverHttp(base: string, event: APIGatewayProxyEventV2, extraHeaders: Record<string, string> = {}): Promise<HttpAnswer> {
  const url = new URL(base);
  const body = event.body === undefined ? undefined : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  const path = `${event.rawPath || '/'}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
  const headers: Record<string, string> = { ...(event.headers as Record<string, string>), ...extraHeaders };
  delete headers['content-length'];
  if (body) headers['content-length'] = String(body.length);

  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: event.requestContext.http.method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      const closed = e.code === 'EPIPE' || e.code === 'ECONNRESET';
      // A body over the API's bound is refused by its declared length, before it is read, and the
      // connection closed (embedded/api-server.ts); a request line and headers over Node's bound
      // (16 KiB) are answered 431 by Node's HTTP server and the connection closed: either way the
      // client may be cut off mid-write, before it reads the answer.
      if (closed && body && body.length > MAX_REQUEST_BODY_BYTES) resolve(cutOff(413, e));
      else if (closed && path.length > maxHeaderSize) resolve(cutOff(431, e));
      else reject(e);
    });
    req.end(body);
  });
}
