// How the agent sends HTTP: the AWS SDK's Node.js handler, the one the agent's SQS client already
// sends with, and not the global fetch.
//
// Why: Node loads fetch's implementation (undici) on its first use. Measured on the 2-core host
// (a process making 10 requests to a local server): 0.36 CPU-s with fetch against 0.15 with
// node:http, and 2.5 ms of CPU a request against 0.8 ms. A fresh agent makes a handful of requests
// in its first seconds, so fetch was a large part of its own start-up; the handler is in the
// agent's bundle anyway, for SQS.
import { Readable } from 'node:stream';
import { HttpRequest, type HttpResponse } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { signableQuery } from '#shared/aws/sign-request.js';

/** Sends one request; the response's body is a stream, to be read once. */
export type HttpSend = (request: HttpRequest) => Promise<HttpResponse>;

export interface HttpOptions {
  /** Connections kept open to each host at most (the bench's simulated agents share one pool). */
  maxSockets?: number;
}

/** A sender over kept-alive connections. */
export function nodeHttp(options: HttpOptions = {}): HttpSend {
  const handler = new NodeHttpHandler({
    connectionTimeout: 10_000,
    // Without a byte for this long the request fails (and is retried where that is safe).
    requestTimeout: 300_000,
    ...(options.maxSockets !== undefined ? { httpAgent: { keepAlive: true, maxSockets: options.maxSockets } } : {}),
  });
  return async (request) => (await handler.handle(request)).response;
}

export interface RequestParts {
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The request for `url`; Node sets the Host header from it. */
export function requestTo(url: URL, parts: RequestParts): HttpRequest {
  return new HttpRequest({
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    method: parts.method,
    path: url.pathname,
    query: signableQuery(url.searchParams),
    headers: parts.headers ?? {},
    ...(parts.body !== undefined ? { body: parts.body } : {}),
  });
}

/** The response's body as a stream (an empty one when it has none). */
export function bodyStream(response: HttpResponse): Readable {
  return response.body instanceof Readable ? response.body : Readable.from(response.body ?? []);
}

/** The response's whole body as text. */
export async function bodyText(response: HttpResponse): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of bodyStream(response)) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}

/** A 2xx status. */
export const ok = (response: HttpResponse) => response.statusCode >= 200 && response.statusCode < 300;
