// The URL an agent's HTTP request (agent/http.ts) goes to, as a string: what tests record.
import type { HttpRequest } from '@smithy/core/protocols';

export function urlOf(request: HttpRequest): string {
  const url = new URL(`${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path}`);
  for (const [key, value] of Object.entries(request.query ?? {}))
    for (const v of Array.isArray(value) ? value : [value]) if (v !== null) url.searchParams.append(key, v);
  return url.toString();
}
