// What the dashboard's page may change, and how: each a `POST /api/<operation>` with the JSON body
// the CLI would send, checked against the user API's own schema and sent with the CLI's client, so
// the controller authorizes it exactly as it does the command (docs/dashboard.md, "Acting"). Every
// one is guarded by the page token and the origin checks of server.ts.
import { describeIssues, userOperations, type WriteOperation } from '#shared/api/requests.js';
import type { ApiClient } from '../client.js';
import { UsageError } from '../errors.js';

/** The model's writes the page makes, as the CLI's `config`, `run`, `resolved`, `remove-unit`, `remove-relation` and `relate`. */
export const DASHBOARD_WRITES = [
  'config',
  'run',
  'resolved',
  'remove-unit',
  'remove-relation',
  'relate',
] as const satisfies readonly WriteOperation[];

/**
 * Routes that are not writes of the model but are guarded as one: a secret's content, read only
 * when the user asks for it (a separate call from the secret's metadata).
 */
export const GUARDED_READS = ['reveal-secret'] as const;

/** Every route a page token admits; a cross-origin request to any of them is refused. */
export const GUARDED_ROUTES: readonly string[] = [...DASHBOARD_WRITES, ...GUARDED_READS];

/** The most a page's write may weigh: a config form or an action's parameters. */
export const MAX_WRITE_BYTES = 64 * 1024;

type Write = (typeof DASHBOARD_WRITES)[number];

const isWrite = (name: string): name is Write => (DASHBOARD_WRITES as readonly string[]).includes(name);
export const isGuardedRoute = (name: string) => GUARDED_ROUTES.includes(name);

/** Parses the body as JSON, or says it is not. */
function jsonOf(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new UsageError('the request body is not JSON');
  }
}

/**
 * Sends one guarded route's request: a write to the operation of that name, after the API's own
 * check of its body (the same words the API would answer); `reveal-secret` reads the content of
 * one secret, as `show-secret --reveal` does.
 */
export async function sendGuarded(client: Pick<ApiClient, 'get' | 'post'>, route: string, body: string): Promise<unknown> {
  const request = jsonOf(body);
  if (route === 'reveal-secret') {
    const { secret, revision } = (request ?? {}) as { secret?: unknown; revision?: unknown };
    if (typeof secret !== 'string' || secret === '') throw new UsageError('no secret specified');
    const query: Record<string, string> = { secret, reveal: 'true' };
    if (revision !== undefined) query.revision = String(revision);
    return client.get('show-secret', query);
  }
  if (!isWrite(route)) throw new UsageError(`the dashboard does not change "${route}"`);
  const checked = userOperations[route].request.safeParse(request);
  if (!checked.success) throw new UsageError(describeIssues(checked.error));
  // The body as the page sent it: the API parses it again, as it parses the CLI's.
  return client.post(route, request as never);
}
