// Who may use the dashboard, and how the browser gets there without the session key ever being on
// a command line (docs/dashboard.md, "Security"). A browser's argv is readable by every local user
// through /proc, so what the command prints and hands to the browser is a one-time link
// (`/open?token=…`): its first use sets the session key as an HttpOnly, SameSite=Strict cookie and
// the token is spent. Every write must also carry a token of the page it comes from, handed out in
// the page itself, which another origin cannot read (a synchronizer token against cross-site requests).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PAGE_TOKEN_HEADER } from './ui/page-token.js';

const random = () => randomBytes(24).toString('base64url');

/** At most this many page tokens are honoured: the newest; an older page is asked to reload. */
const MAX_PAGE_TOKENS = 500;

export interface DashboardSession {
  /** The cookie's name: one per port, since cookies do not tell ports apart. */
  readonly cookieName: string;
  /** A new one-time link for a browser to open. */
  oneTimePath(): string;
  /** Spends a one-time token: the `set-cookie` value that admits the browser, or undefined if it is unknown or spent. */
  exchange(token: string | null): string | undefined;
  /** Whether the request carries the session's cookie. */
  admits(req: IncomingMessage): boolean;
  /** A token for one page load, sent back on each of its writes. */
  newPageToken(): string;
  /** Whether the request carries a token this session handed to a page. */
  fromPage(req: IncomingMessage): boolean;
}

function sameSecret(given: string | undefined, secret: Buffer): boolean {
  if (given === undefined) return false;
  const bytes = Buffer.from(given);
  return bytes.length === secret.length && timingSafeEqual(bytes, secret);
}

/** The value of one cookie of a `Cookie` header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

export function dashboardSession(port: number): DashboardSession {
  const key = Buffer.from(random());
  const oneTime = new Set<string>();
  const pageTokens = new Set<string>();
  const cookieName = `drover-dashboard-${port}`;
  return {
    cookieName,
    oneTimePath() {
      const token = random();
      oneTime.add(token);
      return `/open?token=${token}`;
    },
    exchange(token) {
      if (token === null || !oneTime.delete(token)) return undefined;
      return `${cookieName}=${key.toString()}; HttpOnly; SameSite=Strict; Path=/`;
    },
    admits: (req) => sameSecret(cookieValue(req.headers.cookie, cookieName), key),
    newPageToken() {
      const token = random();
      pageTokens.add(token);
      // A Set iterates oldest first.
      if (pageTokens.size > MAX_PAGE_TOKENS) pageTokens.delete(pageTokens.values().next().value!);
      return token;
    },
    fromPage(req) {
      const given = req.headers[PAGE_TOKEN_HEADER];
      return typeof given === 'string' && pageTokens.has(given);
    },
  };
}
