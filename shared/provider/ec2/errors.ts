// AWS errors → ProviderError. `transient` decides who acts next (as in Juju's
// https://github.com/juju/juju/blob/2.9/worker/provisioner/provisioner_task.go): transient
// errors are retried by the provisioner with backoff; the others are shown to the user as a
// provisioning error until they change something and run retry-provisioning.
import { ProviderError } from '../provider.js';

// Capacity comes back and throttles lift by themselves; everything else needs a person.
const TRANSIENT_CODES = new Set([
  'InsufficientInstanceCapacity',
  'InsufficientHostCapacity',
  'InsufficientReservedInstanceCapacity',
  'InsufficientCapacity',
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'PriorRequestNotComplete',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'Unavailable',
]);

interface AwsErrorShape {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

/** The AWS error code (the SDK puts it in `name`), or undefined for non-AWS errors. */
export function awsErrorCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null || !('$metadata' in e)) return undefined;
  return (e as AwsErrorShape).name;
}

export function isTransientAwsError(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const err = e as AwsErrorShape;
  // No $metadata: the request never got an AWS answer (timeout, connection reset, DNS).
  if (err.$metadata === undefined) return true;
  const status = err.$metadata.httpStatusCode ?? 0;
  return TRANSIENT_CODES.has(err.name ?? '') || err.$fault === 'server' || status >= 500 || status === 429 || Boolean(err.$retryable);
}

/**
 * Wraps any failure of an EC2 call. The message keeps AWS's own words and code (what the user
 * must fix: a parameter, a quota, a permission); it never contains request data such as user data.
 */
export function toProviderError(e: unknown, action: string): ProviderError {
  if (e instanceof ProviderError) return e;
  const err = (typeof e === 'object' && e !== null ? e : {}) as AwsErrorShape;
  const message = err.message || String(e);
  const code = awsErrorCode(e);
  return new ProviderError(`${action}: ${message}${code && code !== message ? ` (${code})` : ''}`, isTransientAwsError(e));
}
