// Requests that come from another origin are refused before anything else is looked at
// (docs/dashboard.md, "Security"): a page of another site, or of another port of this host (which
// a browser calls the same site, and sends SameSite cookies to), cannot make the dashboard read or
// write. Browsers say where a request comes from in `Sec-Fetch-Site` and `Origin`
// (https://fetch.spec.whatwg.org/#origin-header); a write must say it, a read must not contradict it.
import type { IncomingMessage } from 'node:http';

export type Access = 'read' | 'write';

/** Why the request is refused as coming from another origin, or undefined when it does not. */
export function foreignOrigin(req: IncomingMessage, ownOrigins: readonly string[], access: Access): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `a request from another site (${String(site)}) is refused`;
  const origin = req.headers.origin;
  if (origin !== undefined && !ownOrigins.includes(origin)) return `a request from ${origin} is refused`;
  if (access === 'write' && origin === undefined) return "a change must come from the dashboard's page (no Origin)";
  return undefined;
}
