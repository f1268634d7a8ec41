// The dashboard's server and proxy against a real API (DynamoDB Local behind the local API server):
// it reads only what it proxies, only with the session's cookie (set by a one-time link), only on
// 127.0.0.1, of the model the page names (checked); it changes the model only by the CLI's own
// requests, with the page's token, from the page's origin; and nothing it sends the browser
// carries the controller's token.
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { ApiClient } from '../../cli/client.js';
import { dashboardAssets } from '../../cli/dashboard/bundle.js';
import { PROXIED_OPERATIONS } from '../../cli/dashboard/proxy-routes.js';
import { DASHBOARD_WRITES, GUARDED_ROUTES } from '../../cli/dashboard/write-routes.js';
import { PAGE_TOKEN_HEADER } from '../../cli/dashboard/ui/page-token.js';
import { startDashboardServer, type DashboardServer } from '../../cli/dashboard/server.js';
import { openDashboardSession } from '../support/dashboard-session.js';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { userOperations } from '#shared/api/requests.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { charmDir, expectOk, startCliController, TOKEN, type CliHarness } from '../support/cli.js';
import { listeningAddresses } from '../support/listening-sockets.js';
import { signatureCheckingServer } from '../support/sigv4-api.js';
import { API_TOKEN, testApiHandler } from '../support/api-handler.js';
import { startApiServer } from '../../embedded/api-server.js';
import { errorResponse } from '../../functions/api/http.js';

let ctl: CliHarness;
let dashboard: DashboardServer;
/** The `Cookie` header of the session the one-time link opened. */
let cookie: string;
let base: string;

/** Everything a response shows the browser: status line, headers and body. */
interface Seen {
  status: number;
  headers: string;
  body: string;
}

async function get(path: string, headers: Record<string, string> = { cookie }, method = 'GET', body?: string): Promise<Seen> {
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, headers: JSON.stringify([...res.headers]), body: await res.text() };
}

beforeAll(async () => {
  // With the changes function on the stream: it moves the model's revision that /events follows.
  ctl = await startCliController({ changes: true });
  await expectOk(ctl, ['deploy', charmDir('cli-mysql')]);
  await setUnitStatus(ctl.store, 'mysql/0', { agent: { current: 'error', message: 'hook failed: "install"' } });
  // A second model, with another application, beside `default` (still the current one).
  await expectOk(ctl, ['add-model', 'staging', '--no-switch']);
  await expectOk(ctl, ['-m', 'staging', 'deploy', charmDir('cli-wordpress')]);
  await setUnitStatus(await storeOfModel(ctl.store, 'staging'), 'wordpress/0', {
    workload: { current: 'blocked', message: 'staging only' },
  });
  const client = new ApiClient(
    { name: 'test', controller: { type: 'local', apiUrl: ctl.server.url, token: TOKEN } },
    { headers: { [MODEL_HEADER]: 'default' } },
  );
  dashboard = await startDashboardServer({
    client,
    assets: await dashboardAssets(),
    port: 0,
    title: 'drover test:default',
    revisionPollMs: 100,
  });
  base = `http://127.0.0.1:${dashboard.port}`;
  cookie = await openDashboardSession(dashboard.url);
}, 60_000);

afterAll(async () => {
  await dashboard?.close();
  await ctl?.close();
});

describe('the dashboard server', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/open\?token=[A-Za-z0-9_-]{32}$/);
    expect(listeningAddresses(dashboard.port)).toEqual(['127.0.0.1']);
  });

  it('serves the page, the script and the style sheet', async () => {
    const page = await get('/', {});
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/app.js">');
    expect(page.body).toContain('<title>drover test:default</title>');
    expect((await get('/app.js', {})).body.length).toBeGreaterThan(10_000);
    expect((await get('/app.css', {})).body).toContain('.level-error');
  });

  it('proxies the status family with the key, and no response carries the token', async () => {
    const seen: Seen[] = [];
    const status = await get('/api/status?limit=1000');
    seen.push(status);
    expect(status.status).toBe(200);
    const page = JSON.parse(status.body) as { model: { name: string }; applications: Record<string, unknown> };
    expect(page.model.name).toBe('default');
    expect(Object.keys(page.applications)).toEqual(['mysql']);
    const stuck = await get('/api/stuck');
    seen.push(stuck);
    expect(stuck.status).toBe(200);
    const log = await get('/api/status-log?entity=mysql/0&n=5');
    seen.push(log);
    expect(log.status).toBe(200);
    expect(log.body).toContain('hook failed: \\"install\\"');
    const debugLog = await get('/api/debug-log?include=unit-mysql-0&limit=5');
    seen.push(debugLog);
    expect(debugLog.status).toBe(200);
    // Refusals relayed from the controller, and the server's own.
    const refused = await get('/api/status-log?entity=mysql/0&n=zero');
    seen.push(refused);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.message).toMatch(/"n"/);
    seen.push(await get('/api/status', {}), await get('/api/deploy'), await get('/'), await get('/app.js'), await get('/app.css'));
    for (const s of seen) {
      expect(s.body).not.toContain(TOKEN);
      expect(s.headers).not.toContain(TOKEN);
      expect(s.headers.toLowerCase()).not.toContain('authorization');
    }
  });

  it('proxies only its reads, each a GET of the user API; nothing else passes, by any method', async () => {
    for (const operation of PROXIED_OPERATIONS) expect(userOperations[operation].method).toBe('GET');
    for (const operation of ['operations', 'show-model', 'deploy', 'remove-application', 'exec', 'add-secret', '../v1/status']) {
      const res = await get(`/api/${operation}`);
      expect(res.status, operation).toBe(404);
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const body = method === 'POST' || method === 'PUT' || method === 'PATCH' ? JSON.stringify({ applications: ['mysql'] }) : undefined;
      const res = await get('/api/remove-application', { cookie, 'content-type': 'application/json' }, method, body);
      expect(res.status, method).toBe(405);
      expect(res.headers).toContain('"allow","GET"');
    }
    // Nothing changed: mysql is still alive.
    const status = await expectOk(ctl, ['status', '--format', 'json']);
    expect(JSON.parse(status.stdout).applications.mysql.life).toBeUndefined();
  });

  it("reads an application's config and constraints, and refuses a bad name, changing nothing", async () => {
    await expectOk(ctl, ['set-constraints', 'mysql', 'mem=2G']);
    const res = await get('/api/application-settings?application=mysql&set=max-connections%3D1');
    expect(res.status).toBe(200);
    const settings = JSON.parse(res.body) as { constraints: string; config: Record<string, { value?: unknown }> };
    expect(settings.constraints).toBe('arch=amd64 mem=2048M');
    expect(settings.config['max-connections']?.value).toBe(100);
    const refused = await get('/api/application-settings?application=My%20SQL');
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.message).toBe('invalid application name "My SQL"');
    expect((await get('/api/application-settings')).status).toBe(400);
    // The extra `set` was not passed on: the setting is as the charm has it.
    expect((await expectOk(ctl, ['config', 'mysql', 'max-connections'])).stdout).toBe('100\n');
  });

  it('reads the model the page names, of the started one without a name', async () => {
    const statusOf = async (headers: Record<string, string>) => {
      const res = await get('/api/status?limit=1000', { cookie, ...headers });
      expect(res.status).toBe(200);
      const page = JSON.parse(res.body) as { model: { name: string }; applications: Record<string, unknown> };
      return `${page.model.name}: ${Object.keys(page.applications).join(' ')}`;
    };
    expect(await statusOf({ [MODEL_HEADER]: 'staging' })).toBe('staging: wordpress');
    expect(await statusOf({ [MODEL_HEADER]: 'default' })).toBe('default: mysql');
    expect(await statusOf({})).toBe('default: mysql');
    // Every read carries it: a unit's history, and the settings the server reads by POST.
    const history = await get('/api/status-log?entity=wordpress/0&n=5', { cookie, [MODEL_HEADER]: 'staging' });
    expect(history.status).toBe(200);
    const entries = (seen: Seen) => (JSON.parse(seen.body) as { entries: unknown[] }).entries.length;
    expect(history.body).toContain('staging only');
    // `default` has no wordpress/0, so no history of one.
    expect(entries(await get('/api/status-log?entity=wordpress/0&n=5'))).toBe(0);
    const settings = await get('/api/application-settings?application=wordpress', { cookie, [MODEL_HEADER]: 'staging' });
    expect(settings.status).toBe(200);
    expect(JSON.parse(settings.body).application).toBe('wordpress');
    // The list of models is the controller's, whichever model the page shows.
    const models = await get('/api/models', { cookie, [MODEL_HEADER]: 'staging' });
    expect(models.status).toBe(200);
    expect((JSON.parse(models.body) as { models: { name: string }[] }).models.map((m) => m.name).sort()).toEqual(['default', 'staging']);
  });

  it('refuses a bad model name, or a model the controller does not have, changing nothing', async () => {
    const bad = await get('/api/status?limit=10', { cookie, [MODEL_HEADER]: 'Staging!' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe(
      '"Staging!" is not a valid name: model names may only contain lowercase letters, digits and hyphens',
    );
    // Checked before anything reaches the controller, for the reads the server makes itself too.
    const badSettings = await get('/api/application-settings?application=mysql', { cookie, [MODEL_HEADER]: '../default' });
    expect(badSettings.status).toBe(400);
    const unknown = await get('/api/stuck', { cookie, [MODEL_HEADER]: 'nope' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.message).toBe('model "nope" not found; see "drover models"');
    expect(unknown.body).not.toContain(TOKEN);
    // Nothing changed: the same two models, the current one still `default`.
    const models = await expectOk(ctl, ['models', '--format', 'json']);
    const listed = JSON.parse(models.stdout) as { models: { 'short-name': string }[]; 'current-model': string };
    expect(listed.models.map((m) => m['short-name']).sort()).toEqual(['default', 'staging']);
    expect(listed['current-model']).toBe('default');
  });

  it('reads nothing without the session key, or with another', async () => {
    for (const headers of [{}, { cookie: cookie.replace(/=.*/, '=' + 'x'.repeat(32)) }, { cookie: cookie.slice(0, -1) }] as Record<
      string,
      string
    >[]) {
      const res = await get('/api/status?limit=10', headers);
      expect(res.status).toBe(403);
      expect(res.body).not.toContain('mysql');
    }
  });

  it('answers only to its own host names, not to a rebound DNS name', async () => {
    const withHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: dashboard.port, path: '/api/stuck', headers: { host, cookie } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.once('error', reject);
        req.end();
      });
    expect(await withHost('attacker.example:' + dashboard.port)).toBe(421);
    expect(await withHost(`localhost:${dashboard.port}`)).toBe(200);
    expect(await withHost(`127.0.0.1:${dashboard.port}`)).toBe(200);
  });
});

/** The token a freshly loaded page of this session is given, from its <meta>. */
async function pageToken(): Promise<string> {
  const html = await get('/', { cookie });
  const token = /<meta name="drover-page-token" content="([A-Za-z0-9_-]+)">/.exec(html.body)?.[1];
  if (!token) throw new Error('the page was given no token');
  return token;
}

/** A page's change: POSTed with the session's cookie, the page's token and the page's own origin, unless `headers` say otherwise. */
async function change(route: string, body: unknown, headers: Record<string, string | undefined> = {}): Promise<Seen> {
  const all: Record<string, string | undefined> = {
    cookie,
    origin: base,
    'sec-fetch-site': 'same-origin',
    'content-type': 'application/json',
    [PAGE_TOKEN_HEADER]: await pageToken(),
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  return get(`/api/${route}`, sent, 'POST', JSON.stringify(body));
}

/** A request of each guarded route that the controller would carry out. */
const GUARDED_BODIES: Record<string, unknown> = {
  config: { application: 'mysql', set: { 'max-connections': '3' } },
  run: { units: ['mysql/0'], action: 'backup' },
  resolved: { units: ['mysql/0'] },
  'remove-unit': { units: ['mysql/0'] },
  'remove-relation': { endpoints: ['mysql', 'wordpress'] },
  relate: { endpoints: ['mysql', 'wordpress'] },
  'reveal-secret': { secret: 'dashboard-secret' },
};

describe("the dashboard's session", () => {
  it('is opened by a one-time link, as an HttpOnly SameSite=Strict cookie of this port; the link admits once', async () => {
    const link = dashboard.oneTimeUrl();
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/open\?token=[A-Za-z0-9_-]{32}$/);
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect(res.headers.get('set-cookie')).toMatch(
      new RegExp(`^drover-dashboard-${dashboard.port}=[A-Za-z0-9_-]{32}; HttpOnly; SameSite=Strict; Path=/$`),
    );
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(403);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await again.text()).toContain('This link has been used already');
    expect((await fetch(`${base}/open?token=${'x'.repeat(32)}`, { redirect: 'manual' })).status).toBe(403);
  });

  it('gives a page its token only with the session, and never the session key', async () => {
    const key = cookie.split('=')[1]!;
    const admitted = await get('/', { cookie });
    expect(admitted.body).toMatch(/<meta name="drover-page-token" content="[A-Za-z0-9_-]{32}">/);
    expect(admitted.body).not.toContain(key);
    expect((await get('/', {})).body).not.toContain('drover-page-token');
    // Each load its own token.
    expect(await pageToken()).not.toBe(await pageToken());
  });
});

describe("the dashboard's changes", () => {
  it('sets and resets an application setting as `drover config` does, with the session, the page token and its origin', async () => {
    const set = await change('config', { application: 'mysql', set: { 'max-connections': '42' } });
    expect(set.status, set.body).toBe(200);
    expect((await expectOk(ctl, ['config', 'mysql', 'max-connections'])).stdout).toBe('42\n');
    const reset = await change('config', { application: 'mysql', reset: ['max-connections'] });
    expect(reset.status, reset.body).toBe(200);
    expect((await expectOk(ctl, ['config', 'mysql', 'max-connections'])).stdout).toBe('100\n');
    for (const s of [set, reset]) expect(s.body).not.toContain(TOKEN);
  });

  it('refuses a bad change in the API’s words, and a change without the page token, changing nothing', async () => {
    const bad = await change('config', { application: 'mysql', set: { 'max-connections': 'many' } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toMatch(/max-connections/);
    const shapeless = await change('remove-unit', { unit: 'mysql/0' });
    expect(shapeless.status).toBe(400);
    expect(JSON.parse(shapeless.body).error.message).toMatch(/"units"/);
    const notJson = await get(
      '/api/config',
      { cookie, origin: base, 'content-type': 'application/json', [PAGE_TOKEN_HEADER]: await pageToken() },
      'POST',
      '{',
    );
    expect(notJson.status).toBe(400);
    const noToken = await change('config', GUARDED_BODIES.config, { [PAGE_TOKEN_HEADER]: undefined });
    expect(noToken.status).toBe(403);
    const otherToken = await change('config', GUARDED_BODIES.config, { [PAGE_TOKEN_HEADER]: 'y'.repeat(32) });
    expect(otherToken.status).toBe(403);
    const noSession = await change('config', GUARDED_BODIES.config, { cookie: undefined });
    expect(noSession.status).toBe(403);
    // A form's type cannot carry a change.
    const form = await change('config', GUARDED_BODIES.config, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    expect((await expectOk(ctl, ['config', 'mysql', 'max-connections'])).stdout).toBe('100\n');
  });

  it('makes no change by GET', async () => {
    for (const route of GUARDED_ROUTES) {
      const res = await get(`/api/${route}?${new URLSearchParams({ application: 'mysql', set: 'max-connections=9' })}`);
      expect(res.status, route).toBe(405);
      expect(res.headers).toContain('"allow","POST"');
    }
    expect((await expectOk(ctl, ['config', 'mysql', 'max-connections'])).stdout).toBe('100\n');
  });

  it('refuses a request from another origin to every change route, and to reads and events, changing nothing', async () => {
    expect(new Set(Object.keys(GUARDED_BODIES))).toEqual(new Set(GUARDED_ROUTES));
    expect(GUARDED_ROUTES).toEqual(expect.arrayContaining([...DASHBOARD_WRITES]));
    /** What any of the routes could change: applications, units, relations and settings. */
    const model = async () => {
      const status = JSON.parse((await expectOk(ctl, ['status', '--format', 'json'])).stdout) as Record<string, unknown>;
      return { applications: status.applications, relations: status.relations, config: (await expectOk(ctl, ['config', 'mysql'])).stdout };
    };
    const before = await model();
    const foreign: Array<Record<string, string | undefined>> = [
      { origin: 'http://attacker.example', 'sec-fetch-site': 'cross-site' },
      // Another port of this host: the same site to a browser, which sends it SameSite cookies.
      { origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-site' },
      { origin: 'http://attacker.example', 'sec-fetch-site': undefined },
      { origin: 'null', 'sec-fetch-site': undefined },
      // A change must say where it comes from.
      { origin: undefined, 'sec-fetch-site': undefined },
    ];
    for (const route of GUARDED_ROUTES) {
      for (const headers of foreign) {
        const res = await change(route, GUARDED_BODIES[route], headers);
        expect(res.status, `${route} from ${JSON.stringify(headers)}`).toBe(403);
        expect(JSON.parse(res.body).error.code).toBe('cross-origin');
      }
    }
    for (const path of ['/api/status?limit=10', '/api/secrets', '/events']) {
      const res = await get(path, { cookie, origin: 'http://attacker.example', 'sec-fetch-site': 'cross-site' });
      expect(res.status, path).toBe(403);
      expect(res.body).not.toContain('mysql');
    }
    expect(await model()).toEqual(before);
  });
});

describe("the dashboard's secrets", () => {
  it('lists metadata through the proxy, and shows content only on its own guarded call', async () => {
    await expectOk(ctl, ['add-secret', 'dashboard-secret', 'password=hunter2']);
    const listed = await get('/api/secrets');
    expect(listed.status).toBe(200);
    expect(listed.body).toContain('dashboard-secret');
    expect(listed.body).not.toContain('hunter2');
    const withheld = await get('/api/show-secret?secret=dashboard-secret&reveal=true');
    expect(withheld.status).toBe(400);
    expect(withheld.body).not.toContain('hunter2');
    const revealed = await change('reveal-secret', { secret: 'dashboard-secret' });
    expect(revealed.status, revealed.body).toBe(200);
    expect(revealed.body).toContain('hunter2');
  });
});

/** The server's events as a page reads them: each `data:` line's JSON, in order. */
async function openEvents(at: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const res = await fetch(`${at}/events`, { headers, signal: abort.signal });
  const seen: Array<Record<string, unknown>> = [];
  let buffer = '';
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    seen,
    /** Reads on until an event passes `ok`, or the stream ends (undefined). */
    async until(ok: (news: Record<string, unknown>) => boolean): Promise<Record<string, unknown> | undefined> {
      for (;;) {
        const found = seen.find(ok);
        if (found) return found;
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          if (data) seen.push(JSON.parse(data) as Record<string, unknown>);
          buffer = buffer.slice(end + 2);
        }
      }
    },
    close: () => abort.abort(),
  };
}

describe("the dashboard's events", () => {
  it('are refused without the session key, or with another', async () => {
    for (const headers of [{}, { cookie: cookie.replace(/=.*/, '=' + 'x'.repeat(32)) }] as Record<string, string>[]) {
      const res = await get('/events', headers);
      expect(res.status).toBe(403);
      expect(res.headers).toContain('application/json');
    }
  });

  it("tell every open page the model's revision, and a new one once the model changed", { timeout: 60_000 }, async () => {
    const first = await openEvents(base, { cookie });
    const second = await openEvents(base, { cookie });
    try {
      expect(first.status).toBe(200);
      expect(first.type).toBe('text/event-stream; charset=utf-8');
      const before = await first.until((news) => news.kind === 'revision');
      expect(await second.until((news) => news.kind === 'revision')).toBeDefined();
      await expectOk(ctl, ['config', 'mysql', 'max-connections=7']);
      const after = await first.until((news) => news.kind === 'revision' && news.revision !== before?.revision);
      expect(after?.revision).not.toBe(before?.revision);
      expect(await second.until((news) => news.revision === after?.revision)).toBeDefined();
      for (const news of [...first.seen, ...second.seen]) expect(JSON.stringify(news)).not.toContain(TOKEN);
    } finally {
      first.close();
      second.close();
    }
  });

  it("follow the model the page names: its own revision, moved by its changes, not another model's", { timeout: 60_000 }, async () => {
    const staging = await openEvents(base, { cookie, [MODEL_HEADER]: 'staging' });
    const started = await openEvents(base, { cookie });
    /** The next event told after those seen so far. */
    const next = async (events: Awaited<ReturnType<typeof openEvents>>) => {
      const seen = events.seen.length;
      await events.until(() => events.seen.length > seen);
      return events.seen.at(-1);
    };
    try {
      const before = await next(staging);
      const defaultBefore = await next(started);
      await expectOk(ctl, ['-m', 'staging', 'config', 'wordpress', 'blog-title=staging']);
      const after = await staging.until((news) => news.kind === 'revision' && news.revision !== before?.revision);
      expect(after?.revision).not.toBe(before?.revision);
      // The started model's pages are told its own revision, which staging's change did not move.
      const defaultAfter = await next(started);
      expect(defaultAfter).toEqual(defaultBefore);
    } finally {
      staging.close();
      started.close();
    }
  });

  it('refuse a bad model name before asking the controller', async () => {
    const res = await get('/events', { cookie, [MODEL_HEADER]: 'Staging!' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.message).toBe(
      '"Staging!" is not a valid name: model names may only contain lowercase letters, digits and hyphens',
    );
  });

  it('say once that a controller without the revision is too old, and end: the page polls instead', async () => {
    const handler = await testApiHandler(ctl.store);
    // An older controller: the same API, but no route for the revision, and its answer for that.
    const older = await startApiServer(async (event) =>
      event.rawPath === '/v1/model-revision'
        ? errorResponse('not-found', `no route GET ${event.rawPath}; see "drover help"`)
        : handler(event),
    );
    const client = new ApiClient(
      { name: 'old', controller: { type: 'local', apiUrl: older.url, token: API_TOKEN } },
      { headers: { [MODEL_HEADER]: 'default' } },
    );
    const server = await startDashboardServer({ client, assets: await dashboardAssets(), port: 0, title: 'old', revisionPollMs: 100 });
    try {
      const events = await openEvents(`http://127.0.0.1:${server.port}`, { cookie: await openDashboardSession(server.url) });
      expect(await events.until(() => false)).toBeUndefined();
      expect(events.seen).toEqual([{ kind: 'unsupported' }]);
    } finally {
      await server.close();
      await older.close();
    }
  });
});

describe('the dashboard of an AWS controller', () => {
  it("signs each read with SigV4 from the CLI's credentials, and the browser sees none of it", async () => {
    const api = await signatureCheckingServer('eu-west-1', 'secret-key');
    // The standard AWS chain reads this process's environment, as the CLI's does.
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret-key', AWS_EC2_METADATA_DISABLED: 'true' });
    const client = new ApiClient(
      { name: 'prod', controller: { type: 'aws', apiUrl: api.url, region: 'eu-west-1' } },
      { headers: { [MODEL_HEADER]: 'default' } },
    );
    const aws = await startDashboardServer({ client, assets: await dashboardAssets(), port: 0, title: 'drover prod:default' });
    try {
      const awsCookie = await openDashboardSession(aws.url);
      const res = await fetch(`http://127.0.0.1:${aws.port}/api/status?limit=1000`, { headers: { cookie: awsCookie } });
      const seen = { status: res.status, headers: JSON.stringify([...res.headers]), body: await res.text() };
      expect(seen.status).toBe(200);
      expect(JSON.parse(seen.body).model).toEqual({ name: 'default', controller: 'aws' });
      // The page's model goes to the controller in the signed header, in place of the started one.
      const staging = await fetch(`http://127.0.0.1:${aws.port}/api/stuck`, {
        headers: { cookie: awsCookie, [MODEL_HEADER]: 'staging' },
      });
      expect(staging.status).toBe(200);
      expect(api.seen).toEqual(['GET /v1/status?limit=1000 signed in default', 'GET /v1/stuck signed in staging']);
      for (const secret of ['secret-key', 'AKIDTEST', 'AWS4-HMAC-SHA256', 'Signature=', 'x-amz-']) {
        expect(seen.body).not.toContain(secret);
        expect(seen.headers).not.toContain(secret);
      }
    } finally {
      process.env = saved;
      await aws.close();
      await api.close();
    }
  });
});

/** `drover dashboard <args> --port 0 --no-browser`, once it has printed its URL: the URL, and how to stop it. */
async function runDashboard(args: string[]) {
  const interrupt = new AbortController();
  let printed = '';
  let announced: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (announced = resolve));
  const running = ctl.run(['dashboard', ...args, '--port', '0', '--no-browser'], {
    signal: interrupt.signal,
    onStdout: (text) => {
      printed += text;
      const found = /http:\/\/127\.0\.0\.1:\d+\/open\?token=\S+/.exec(printed);
      if (found) announced(found[0]);
    },
  });
  // A command that ends before printing its URL fails the test with what it said.
  void running.then((res) => announced(`exited ${res.code}: ${res.stderr}`));
  const address = await url;
  return { address, interrupt, running };
}

describe('drover dashboard', () => {
  it('prints the URL, serves until interrupted, and exits 0', { timeout: 30_000 }, async () => {
    const { address, interrupt, running } = await runDashboard([]);
    expect(address).toMatch(/^http/);
    const res = await fetch(new URL('/api/stuck', address), { headers: { cookie: await openDashboardSession(address) } });
    expect(res.status).toBe(200);
    interrupt.abort();
    const done = await running;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('Dashboard for controller "test", model "default", is running at:');
    await expect(fetch(new URL('/', address))).rejects.toThrow();
  });

  it('opens the URL in $BROWSER unless --no-browser', { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drover-browser-'));
    const opened = join(dir, 'opened');
    const browser = join(dir, 'browser');
    // A stand-in browser: it writes down the URL it was given.
    await writeFile(browser, `#!/bin/sh\necho "$1" > ${opened}\n`);
    await chmod(browser, 0o755);
    const interrupt = new AbortController();
    let printed = '';
    const running = ctl.run(['dashboard', '--port', '0'], {
      env: { BROWSER: browser },
      signal: interrupt.signal,
      onStdout: (text) => void (printed += text),
    });
    const url = await waitFor(
      'the browser to be opened',
      () => readFile(opened, 'utf8').catch(() => ''),
      (text) => text.length > 0,
    );
    interrupt.abort();
    expect((await running).code).toBe(0);
    // A one-time link of its own, not the printed one: both admit a browser once.
    expect(url.trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/open\?token=/);
    const shown = /http:\S+/.exec(printed)?.[0] ?? '';
    expect(new URL(url.trim()).port).toBe(new URL(shown).port);
    expect(url.trim()).not.toBe(shown);
  });

  it('starts on the model -m names', { timeout: 30_000 }, async () => {
    const { address, interrupt, running } = await runDashboard(['-m', 'staging']);
    expect(address).toMatch(/^http/);
    const res = await fetch(new URL('/api/status?limit=1000', address), { headers: { cookie: await openDashboardSession(address) } });
    const page = (await res.json()) as { model: { name: string }; applications: Record<string, unknown> };
    expect(page.model.name).toBe('staging');
    expect(Object.keys(page.applications)).toEqual(['wordpress']);
    interrupt.abort();
    const done = await running;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('Dashboard for controller "test", model "staging", is running at:');
  });

  it('refuses a bad port as a usage error', async () => {
    const res = await ctl.run(['dashboard', '--port', 'http', '--no-browser']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--port must be a port number');
  });
});
