// The dashboard's session and origin rules (cli/dashboard/session.ts, same-origin.ts), without a
// server: a one-time token admits once, a cookie admits only with this session's key, a page
// token only if this session handed it out (the newest 500), and a request from another origin is
// refused while a write must say where it comes from.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { foreignOrigin } from '../../cli/dashboard/same-origin.js';
import { cookieValue, dashboardSession } from '../../cli/dashboard/session.js';
import { PAGE_TOKEN_HEADER } from '../../cli/dashboard/ui/page-token.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const OWN = ['http://127.0.0.1:31666', 'http://localhost:31666'];

describe("the dashboard's session", () => {
  it('spends a one-time token on its first use, for a cookie that admits; nothing else admits', () => {
    const session = dashboardSession(31666);
    const token = new URLSearchParams(session.oneTimePath().split('?')[1]).get('token');
    const cookie = session.exchange(token);
    expect(cookie).toMatch(/^drover-dashboard-31666=[A-Za-z0-9_-]{32}; HttpOnly; SameSite=Strict; Path=\/$/);
    expect(session.exchange(token)).toBeUndefined();
    expect(session.exchange(null)).toBeUndefined();
    const pair = cookie!.split(';')[0]!;
    expect(session.admits(request({ cookie: `other=1; ${pair}` }))).toBe(true);
    expect(session.admits(request({ cookie: pair.slice(0, -1) }))).toBe(false);
    expect(session.admits(request({ cookie: pair.replace('31666', '31667') }))).toBe(false);
    // Another session's cookie of the same port does not admit.
    const other = dashboardSession(31666);
    const otherPair = other.exchange(new URLSearchParams(other.oneTimePath().split('?')[1]).get('token'))!.split(';')[0]!;
    expect(session.admits(request({ cookie: otherPair }))).toBe(false);
  });

  it('honours only page tokens it handed out, the newest 500', () => {
    const session = dashboardSession(1);
    const first = session.newPageToken();
    expect(session.fromPage(request({ [PAGE_TOKEN_HEADER]: first }))).toBe(true);
    expect(session.fromPage(request({ [PAGE_TOKEN_HEADER]: dashboardSession(1).newPageToken() }))).toBe(false);
    expect(session.fromPage(request({}))).toBe(false);
    for (let i = 0; i < 500; i++) session.newPageToken();
    expect(session.fromPage(request({ [PAGE_TOKEN_HEADER]: first }))).toBe(false);
  });

  it('reads one cookie of a header', () => {
    expect(cookieValue('a=1; b=x=y; c=3', 'b')).toBe('x=y');
    expect(cookieValue(undefined, 'b')).toBeUndefined();
    expect(cookieValue('ab=1', 'b')).toBeUndefined();
  });
});

describe('requests from another origin', () => {
  it('are refused, reads and writes; a write must carry its origin', () => {
    expect(foreignOrigin(request({ 'sec-fetch-site': 'same-origin' }), OWN, 'read')).toBeUndefined();
    expect(foreignOrigin(request({}), OWN, 'read')).toBeUndefined();
    expect(foreignOrigin(request({ origin: 'http://localhost:31666', 'sec-fetch-site': 'same-origin' }), OWN, 'write')).toBeUndefined();
    expect(foreignOrigin(request({ 'sec-fetch-site': 'same-site' }), OWN, 'read')).toBe(
      'a request from another site (same-site) is refused',
    );
    expect(foreignOrigin(request({ 'sec-fetch-site': 'cross-site' }), OWN, 'read')).toBe(
      'a request from another site (cross-site) is refused',
    );
    expect(foreignOrigin(request({ origin: 'http://127.0.0.1:8080' }), OWN, 'read')).toBe(
      'a request from http://127.0.0.1:8080 is refused',
    );
    expect(foreignOrigin(request({ origin: 'null' }), OWN, 'write')).toBe('a request from null is refused');
    expect(foreignOrigin(request({}), OWN, 'write')).toBe("a change must come from the dashboard's page (no Origin)");
  });
});
