// HTTP answers in API Gateway's HTTP API (payload v2) shape, and how errors map to statuses:
// whatever a client sent wrong is 4xx with a message that says what and what to do; only a
// failure of drover itself is 500.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DroverError, type ErrorCode } from '#shared/domain/errors.js';

const STATUS: Record<ErrorCode, number> = {
  'invalid-argument': 400,
  'not-supported': 400,
  unauthorized: 403,
  'not-found': 404,
  'not-alive': 409,
  'already-exists': 409,
  'has-assignments': 409,
  'not-dead': 409,
  'quota-exceeded': 409,
  // Retryable: the client may try again soon.
  contention: 503,
};

export function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

export function errorResponse(code: ErrorCode | 'internal', message: string): APIGatewayProxyStructuredResultV2 {
  return json(code === 'internal' ? 500 : STATUS[code], { error: { code, message } });
}

/** 413: the request is larger than the API takes, whatever it holds. */
export function tooLargeResponse(message: string): APIGatewayProxyStructuredResultV2 {
  return json(413, { error: { code: 'invalid-argument', message } });
}

export function fromError(e: unknown): APIGatewayProxyStructuredResultV2 | undefined {
  return e instanceof DroverError ? errorResponse(e.code, e.message) : undefined;
}
