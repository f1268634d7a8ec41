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
