// The AWS SDK's logger middleware runs on every request of every client, and before it hands its
// logger anything it walks the request's whole input and output to blank sensitive fields. A
// client given no logger still has one (a no-op with an `info`), so the walk happens for nothing.
// drover's clients log nothing through the SDK (a failed request reaches its caller as an error,
// and our own logger says what it was), so the middleware goes from the clients that carry the
// hot paths: DynamoDB, its streams, SQS. bench/sdk-requests.bench.ts measures what it cost.

/** The SDK's name for the middleware (@aws-sdk/core, loggerMiddlewareOptions). */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/** Removes the SDK's request logging from `client`'s stack; returns the client. */
export function withoutRequestLogging<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
