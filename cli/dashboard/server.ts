// The dashboard's web server: the UI's three files, the read-only proxy, and `/events`, the model's
// revision as Server-Sent Events (events.ts, revision-watch.ts), on 127.0.0.1 only.
// The browser never holds a controller credential: the proxy signs with the CLI's own client
// (a bearer token locally, SigV4 on AWS), and answers with the controller's JSON, never its
// headers. A random key, in the URL's fragment, admits the page's API calls, so neither another
// local user nor a web page (through DNS rebinding or a form) can read the model through it
// (docs/dashboard.md, "Security").
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../client.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { readApplicationSettings } from './application-settings.js';
import type { DashboardAssets } from './bundle.js';
import { serveEvents } from './events.js';
import { clientForPageModel, type DashboardClient } from './page-model.js';
import { proxiedOperation, queryOf } from './proxy-routes.js';
import { REVISION_POLL_MS, watchRevision, type RevisionWatch } from './revision-watch.js';
import { KEY_HEADER } from './ui/key-header.js';
import { errorMessage } from '#shared/domain/errors.js';

/** The one address the dashboard listens on: never a public interface. */
export const DASHBOARD_HOST = '127.0.0.1';

export interface DashboardServer {
  /** `http://127.0.0.1:<port>/#key=<key>`: what the user opens. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface DashboardOptions {
  /**
   * Reads of the model it was started on, made with the CLI's credentials (posts only in
   * application-settings.ts); of another model of the controller when the page names one.
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

function sameKey(given: string | string[] | undefined, key: Buffer): boolean {
  if (typeof given !== 'string') return false;
  const bytes = Buffer.from(given);
  return bytes.length === key.length && timingSafeEqual(bytes, key);
}

/** Only names of this server are answered: a rebound DNS name reaching 127.0.0.1 is not. */
const ownHost = (host: string | undefined, port: number) => host === `${DASHBOARD_HOST}:${port}` || host === `localhost:${port}`;

/** What the page may read: the status family as it is, and an application's settings. */
async function readFor(client: Pick<ApiClient, 'get' | 'post'>, operation: string, url: URL): Promise<unknown> {
  if (operation === 'application-settings') return readApplicationSettings(client, url.searchParams.get('application'));
  const read = proxiedOperation(operation);
  if (!read) throw new ApiError('not-found', `the dashboard does not read "${operation}"`, 404);
  return client.get(read, queryOf(url.searchParams));
}

async function proxy(res: ServerResponse, client: DashboardClient, req: IncomingMessage, operation: string, url: URL): Promise<void> {
  try {
    // A new object from the parsed answer: nothing of the controller's response but its JSON.
    sendJson(res, 200, await readFor(clientForPageModel(client, req.headers[MODEL_HEADER]), operation, url));
  } catch (e) {
    if (e instanceof ApiError) return sendError(res, e.httpStatus >= 400 ? e.httpStatus : 502, e.code, e.message);
    if (e instanceof UsageError) return sendError(res, 400, 'bad-request', e.message);
    if (e instanceof CliError) return sendError(res, 502, 'unreachable', e.message);
    sendError(res, 500, 'internal', errorMessage(e));
  }
}

export async function startDashboardServer(options: DashboardOptions): Promise<DashboardServer> {
  const key = randomBytes(24).toString('base64url');
  const keyBytes = Buffer.from(key);
  let port = 0;
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
    if (req.method !== 'GET') {
      res.setHeader('allow', 'GET');
      return sendError(res, 405, 'method-not-allowed', 'the dashboard only reads');
    }
    const url = new URL(req.url ?? '/', `http://${DASHBOARD_HOST}:${port}`);
    if (url.pathname === '/' || url.pathname === '/index.html')
      return send(res, 200, 'text/html; charset=utf-8', options.assets.html(options.title));
    if (url.pathname === '/app.css') return send(res, 200, 'text/css; charset=utf-8', options.assets.style);
    if (url.pathname === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', options.assets.script);
    if (url.pathname.startsWith('/api/')) {
      if (!sameKey(req.headers[KEY_HEADER], keyBytes))
        return sendError(res, 403, 'forbidden', 'open the dashboard from the URL drover printed');
      return proxy(res, options.client, req, url.pathname.slice('/api/'.length), url);
    }
    if (url.pathname === '/events') {
      if (!sameKey(req.headers[KEY_HEADER], keyBytes))
        return sendError(res, 403, 'forbidden', 'open the dashboard from the URL drover printed');
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
  return {
    url: `http://${DASHBOARD_HOST}:${port}/#key=${key}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const watch of revisions.values()) watch.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
