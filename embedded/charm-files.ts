// The local controller's stand-in for S3 under the charm store (shared/charmstore/local-charm-store.ts):
// `GET /charm-archives/<sha256>?expires=…&signature=…` streams an archive from the data directory
// to whoever holds a URL the API signed, as a presigned S3 GET does on AWS. It bypasses the
// API Gateway event (embedded/api-server.ts), whose body is held in memory, so an archive of any
// size is streamed and never buffered.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { DirectRoute } from './api-server.js';
import { VALID_KEY } from '../shared/charmstore/charm-store.js';
import { LOCAL_ARCHIVE_PATH, type LocalCharmStore } from '../shared/charmstore/local-charm-store.js';
import { localUrlRefusal } from '../shared/charmstore/signed-local-url.js';

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: { code, message } }));
}

export function charmFileRoutes(store: LocalCharmStore): DirectRoute {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(LOCAL_ARCHIVE_PATH)) return false;
    const key = url.pathname.slice(LOCAL_ARCHIVE_PATH.length);
    if (req.method !== 'GET') {
      refuse(res, 405, 'invalid-argument', `${url.pathname} takes GET, not ${req.method}`);
      return true;
    }
    const refusal = localUrlRefusal(store.urlKey, 'GET', url.pathname, url.searchParams);
    if (refusal) {
      refuse(res, 403, 'unauthorized', `permission denied: ${refusal}`);
      return true;
    }
    const path = VALID_KEY.test(key) ? store.archivePath(key) : undefined;
    const size = path
      ? await stat(path).then(
          (s) => s.size,
          () => undefined,
        )
      : undefined;
    if (path === undefined || size === undefined) {
      refuse(res, 404, 'not-found', `charm archive ${key} not found`);
      return true;
    }
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(size) });
    await pipeline(createReadStream(path), res);
    return true;
  };
}
