// The local controller's stand-in for a presigned S3 URL: a path on the local API server, valid
// until `expires` (seconds since the epoch), signed with an HMAC of the method, the path and every
// other query parameter under a key only the controller holds (embedded/secrets.ts keeps it in its
// data directory). So an agent downloads a charm, and the CLI uploads one, with plain HTTP and no
// credential of its own, exactly as they do from S3 on AWS.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a charm URL lasts: long enough to start the transfer, too short to be worth keeping. */
export const CHARM_URL_SECONDS = 300;
/** An upload's URL lasts longer: a slow link may take a while to start sending a gigabyte. */
export const CHARM_UPLOAD_URL_SECONDS = 900;

export type HttpMethod = 'GET' | 'PUT';

function signature(key: string, method: HttpMethod, path: string, params: URLSearchParams): string {
  const canonical = [...params].filter(([k]) => k !== 'signature').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = [method, path, ...canonical.map(([k, v]) => `${k}=${v}`)].join('\n');
  return createHmac('sha256', key).update(text).digest('hex');
}

/** `path?…&expires=…&signature=…`, relative: the client resolves it against the API's URL it already has. */
export function signLocalUrl(
  key: string,
  method: HttpMethod,
  path: string,
  params: Record<string, string> = {},
  options: { now?: Date; seconds?: number } = {},
): string {
  const expires = Math.floor((options.now ?? new Date()).getTime() / 1000) + (options.seconds ?? CHARM_URL_SECONDS);
  const query = new URLSearchParams({ ...params, expires: String(expires) });
  query.set('signature', signature(key, method, path, query));
  return `${path}?${query.toString()}`;
}

/** Why a request's URL is not one this key signed, still valid; undefined when it is. */
export function localUrlRefusal(
  key: string,
  method: HttpMethod,
  path: string,
  query: URLSearchParams,
  now = new Date(),
): string | undefined {
  const given = query.get('signature') ?? '';
  const expected = signature(key, method, path, query);
  if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected)))
    return 'the URL is not signed by this controller (or was changed); ask the API for a new one';
  const expires = Number(query.get('expires'));
  if (!Number.isInteger(expires) || expires * 1000 < now.getTime()) return 'the URL has expired; ask the API for a new one';
  return undefined;
}
