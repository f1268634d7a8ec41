// The dashboard's web server: the UI's three files, the proxy of the user API (reads, and the
// page's few writes), and `/events`, the model's revision as Server-Sent Events (events.ts,
// revision-watch.ts), on 127.0.0.1 only. The browser never holds a controller credential: the
// proxy signs with the CLI's own client (a bearer token locally, SigV4 on AWS), and answers with
// the controller's JSON, never its headers. A session cookie, set by a one-time link, admits the
// page's calls; each write also carries its page's token and must come from the page's own origin
// (session.ts, same-origin.ts), so neither another local user nor a web page (through DNS
// rebinding, a form or a script) can read or change the model through it (docs/dashboard.md, "Security").
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../client.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { readApplicationSettings } from './application-settings.js';
import type { DashboardAssets } from './bundle.js';
import { serveEvents } from './events.js';
import { clientForPageModel, type DashboardClient } from './page-model.js';
import { proxiedOperation, queryOf, WITHHELD_PARAMETERS } from './proxy-routes.js';
import { REVISION_POLL_MS, watchRevision, type RevisionWatch } from './revision-watch.js';
import { foreignOrigin, type Access } from './same-origin.js';
import { dashboardSession } from './session.js';
import { PAGE_TOKEN_META } from './ui/page-token.js';
import { isGuardedRoute, MAX_WRITE_BYTES, sendGuarded } from './write-routes.js';
import { errorMessage } from '#shared/domain/errors.js';

/** The one address the dashboard listens on: never a public interface. */
export const DASHBOARD_HOST = '127.0.0.1';

export interface DashboardServer {
  /** `http://127.0.0.1:<port>/open?token=<one-time token>`: what the user opens, once. */
  url: string;
  /** Another one-time link, for the browser the command opens (each link admits one browser). */
  oneTimeUrl(): string;
  port: number;
  close(): Promise<void>;
}

export interface DashboardOptions {
  /**
   * Requests of the model it was started on, made with the CLI's credentials (posts only in
   * application-settings.ts and write-routes.ts); of another model of the controller when the page names one.
   */
  client: DashboardClient;
  assets: DashboardAssets;
  /** 0: any free port. */
  port: number;
  /** Shown in the page's title bar. */
  title: string;
  /** How often the model's revision is read while a page listens (default REVISION_POLL_MS). */
  revisionPollMs?: number;
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
};

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, value: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
const sendError = (res: ServerResponse, status: number, code: string, message: string) =>
  sendJson(res, status, { error: { code, message } });

/** Only names of this server are answered: a rebound DNS name reaching 127.0.0.1 is not. */
const ownHost = (host: string | undefined, port: number) => host === `${DASHBOARD_HOST}:${port}` || host === `localhost:${port}`;

/** What the page may read: the proxied reads as they are, and an application's settings. */
async function readFor(client: Pick<ApiClient, 'get' | 'post'>, operation: string, url: URL): Promise<unknown> {
  if (operation === 'application-settings') return readApplicationSettings(client, url.searchParams.get('application'));
  const read = proxiedOperation(operation);
  if (!read) throw new ApiError('not-found', `the dashboard does not read "${operation}"`, 404);
  const withheld = WITHHELD_PARAMETERS[read];
  if (withheld && url.searchParams.has(withheld))
    throw new UsageError(`the dashboard does not pass "${withheld}" on; ask for it by its own button`);
  return client.get(read, queryOf(url.searchParams));
}

/** The request's body, refused past `MAX_WRITE_BYTES` or when it is not JSON by its type (a form cannot send that type). */
async function bodyOf(req: IncomingMessage): Promise<string> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) throw new UsageError('a change is sent as application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_WRITE_BYTES) throw new UsageError(`a change may weigh at most ${MAX_WRITE_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function proxy(
  res: ServerResponse,
  client: DashboardClient,
  req: IncomingMessage,
  operation: string,
  url: URL,
  access: Access,
): Promise<void> {
  try {
    const modelClient = clientForPageModel(client, req.headers[MODEL_HEADER]);
    // A new object from the parsed answer: nothing of the controller's response but its JSON.
    const answer =
      access === 'write' ? await sendGuarded(modelClient, operation, await bodyOf(req)) : await readFor(modelClient, operation, url);
    sendJson(res, 200, answer);
  } catch (e) {
    if (e instanceof ApiError) return sendError(res, e.httpStatus >= 400 ? e.httpStatus : 502, e.code, e.message);
    if (e instanceof UsageError) return sendError(res, 400, 'bad-request', e.message);
    if (e instanceof CliError) return sendError(res, 502, 'unreachable', e.message);
    sendError(res, 500, 'internal', errorMessage(e));
  }
}

/** The page shell, with a token of its own for its writes when the session admits it. */
function pageHtml(assets: DashboardAssets, title: string, pageToken: string | undefined): string {
  const meta = pageToken ? `<meta name="${PAGE_TOKEN_META}" content="${pageToken}">\n` : '';
  return assets.html(title).replace('</head>', `${meta}</head>`);
}

const FORBIDDEN = 'open the dashboard from the URL drover printed';

export async function startDashboardServer(options: DashboardOptions): Promise<DashboardServer> {
  let port = 0;
  let session = dashboardSession(0);
  const ownOrigins = () => [`http://${DASHBOARD_HOST}:${port}`, `http://localhost:${port}`];
  // One watch for each model a page shows ('' for the one the dashboard was started on), shared by
  // its pages: the controller is asked once per interval however many listen, and not at all for a
  // model no page listens to.
  const revisions = new Map<string, RevisionWatch>();
  const watchOf = (req: IncomingMessage): RevisionWatch => {
    const model = req.headers[MODEL_HEADER];
    const name = Array.isArray(model) ? model.join(', ') : (model ?? '');
    let watch = revisions.get(name);
    if (!watch) {
      watch = watchRevision(clientForPageModel(options.client, model), options.revisionPollMs ?? REVISION_POLL_MS);
      revisions.set(name, watch);
    }
    return watch;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!ownHost(req.headers.host, port)) return sendError(res, 421, 'wrong-host', 'the dashboard answers only to 127.0.0.1 and localhost');
    const url = new URL(req.url ?? '/', `http://${DASHBOARD_HOST}:${port}`);
    const route = url.pathname.startsWith('/api/') ? url.pathname.slice('/api/'.length) : undefined;
    // Only the guarded routes change anything, and only by POST; nothing changes by GET.
    const allowed = route !== undefined && isGuardedRoute(route) ? 'POST' : 'GET';
    if (req.method !== allowed) {
      res.setHeader('allow', allowed);
      return sendError(
        res,
        405,
        'method-not-allowed',
        allowed === 'GET' ? 'the dashboard only reads this' : `${route} is a change: POST it`,
      );
    }
    if (url.pathname === '/open') {
      const cookie = session.exchange(url.searchParams.get('token'));
      if (!cookie)
        return send(res, 403, 'text/plain; charset=utf-8', 'This link has been used already: run drover dashboard again for a new one.\n');
      // The token is spent; the page loads without it (the browser keeps the fragment, with the model on view).
      res.writeHead(303, { ...SECURITY_HEADERS, 'set-cookie': cookie, location: '/', 'content-length': 0 });
      return res.end();
    }
    if (url.pathname === '/' || url.pathname === '/index.html')
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        pageHtml(options.assets, options.title, session.admits(req) ? session.newPageToken() : undefined),
      );
    if (url.pathname === '/app.css') return send(res, 200, 'text/css; charset=utf-8', options.assets.style);
    if (url.pathname === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', options.assets.script);
    if (route !== undefined) {
      const access: Access = allowed === 'POST' ? 'write' : 'read';
      const foreign = foreignOrigin(req, ownOrigins(), access);
      if (foreign) return sendError(res, 403, 'cross-origin', foreign);
      if (!session.admits(req)) return sendError(res, 403, 'forbidden', FORBIDDEN);
      if (access === 'write' && !session.fromPage(req))
        return sendError(res, 403, 'forbidden', 'this page is too old to make changes: reload it');
      return proxy(res, options.client, req, route, url, access);
    }
    if (url.pathname === '/events') {
      const foreign = foreignOrigin(req, ownOrigins(), 'read');
      if (foreign) return sendError(res, 403, 'cross-origin', foreign);
      if (!session.admits(req)) return sendError(res, 403, 'forbidden', FORBIDDEN);
      let watch: RevisionWatch;
      try {
        watch = watchOf(req);
      } catch (e) {
        if (e instanceof UsageError) return sendError(res, 400, 'bad-request', e.message);
        throw e;
      }
      return serveEvents(req, res, watch, SECURITY_HEADERS);
    }
    sendError(res, 404, 'not-found', `no page ${url.pathname}`);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendError(res, 500, 'internal', errorMessage(e));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new CliError(`port ${options.port} is in use; choose another with --port`) : e),
    );
    server.listen(options.port, DASHBOARD_HOST, resolve);
  });
  port = (server.address() as AddressInfo).port;
  // Made once the port is known: the cookie is named after it.
  session = dashboardSession(port);
  const oneTimeUrl = () => `http://${DASHBOARD_HOST}:${port}${session.oneTimePath()}`;
  return {
    url: oneTimeUrl(),
    oneTimeUrl,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const watch of revisions.values()) watch.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
