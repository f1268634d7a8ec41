// What the dashboard's proxy passes on to the controller as it is: reads of the status family, the
// list of the controller's models for the page's model switcher, an application's actions, a task,
// and the secrets' metadata (never their content: see write-routes.ts). Changes go only through
// write-routes.ts (docs/dashboard.md, "The proxy").
import type { ReadOperation } from '#shared/api/requests.js';

/**
 * `GET /api/<operation>` reaches `GET /v1/<operation>` with the same query; nothing else does.
 * Every one is a GET of the user API (the type says so), and none of them can write.
 */
export const PROXIED_OPERATIONS: ReadonlySet<ReadOperation> = new Set<ReadOperation>([
  'status',
  'stuck',
  'status-log',
  'debug-log',
  'models',
  'actions',
  'show-task',
  'secrets',
  'show-secret',
]);

export function proxiedOperation(name: string): ReadOperation | undefined {
  return (PROXIED_OPERATIONS as ReadonlySet<string>).has(name) ? (name as ReadOperation) : undefined;
}

/** Query parameters a proxied read may not carry: a secret's content is read only by `reveal-secret`. */
export const WITHHELD_PARAMETERS: Partial<Record<ReadOperation, string>> = { 'show-secret': 'reveal' };

/** `?a=1&a=2&b=3` as the client's query: repeated keys stay repeated. */
export function queryOf(params: URLSearchParams): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [key, value] of params) (query[key] ??= []).push(value);
  return query;
}
