// Errors carry a stable code (the API maps it to an HTTP status, the CLI to an exit code) and a
// message in Juju's words, so users who know Juju recognise them.
export type ErrorCode =
  | 'not-found'
  | 'not-alive'
  | 'already-exists'
  | 'invalid-argument'
  | 'has-assignments'
  | 'not-dead'
  | 'contention'
  | 'not-supported'
  | 'quota-exceeded'
  | 'unauthorized';

export class DroverError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DroverError';
  }
}

export const invalidArgument = (message: string) => new DroverError('invalid-argument', message);
export const notFound = (message: string) => new DroverError('not-found', message);
export const notAlive = (message: string) => new DroverError('not-alive', message);
export const alreadyExists = (message: string) => new DroverError('already-exists', message);

export const isDroverError = (e: unknown, code?: ErrorCode): e is DroverError =>
  e instanceof DroverError && (code === undefined || e.code === code);

// What anything thrown says: its message if it has one (an Error, also one from another realm such as
// a worker thread), else the value as text. The one way to read a caught `unknown`;
// test/unit/one-way.test.ts refuses hand-written variants.
export const errorMessage = (e: unknown): string => {
  const message = (e as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(e);
};

// The same with where it was thrown, for reports of a crash.
export const errorStack = (e: unknown): string => {
  const stack = (e as { stack?: unknown } | null | undefined)?.stack;
  return typeof stack === 'string' ? stack : errorMessage(e);
};
