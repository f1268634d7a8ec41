// What the dashboard's proxy passes on to the controller: only reads of the status family, and
// the list of the controller's models for the page's model switcher, so a page in the browser can
// look at the models and never change them (docs/dashboard.md, "The proxy").
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
]);

export function proxiedOperation(name: string): ReadOperation | undefined {
  return (PROXIED_OPERATIONS as ReadonlySet<string>).has(name) ? (name as ReadOperation) : undefined;
}

/** `?a=1&a=2&b=3` as the client's query: repeated keys stay repeated. */
export function queryOf(params: URLSearchParams): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [key, value] of params) (query[key] ??= []).push(value);
  return query;
}
