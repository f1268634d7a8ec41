// One HTTP request to the API, through node:http (node:https for https URLs, loaded only then).
// Not fetch: Node loads fetch's implementation (undici, and its WebAssembly HTTP parser) on first
// use, about 20 ms of CPU, as much as the rest of a `drover status` (bench/RESULTS.md, "CLI
// start-up"); tools run `status` once a second.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface HttpResponse {
  status: number;
  text: string;
}

/**
 * Sends the request and reads the whole answer. Fails with the socket's own error (`connect
 * ECONNREFUSED 127.0.0.1:8080`), or the signal's reason once it is aborted.
 */
export async function sendHttpRequest(req: HttpRequest): Promise<HttpResponse> {
  const request = req.url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
  const options: RequestOptions = { method: req.method, headers, signal: req.signal };
  return new Promise((resolve, reject) => {
    const outgoing = request(req.url, options, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', (e) => reject(req.signal.aborted ? req.signal.reason : e));
    outgoing.end(req.body);
  });
}
