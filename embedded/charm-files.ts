// The local controller's stand-in for S3 under the charm store (shared/charmstore/local-charm-store.ts),
// for whoever holds a URL the API signed, as presigned S3 URLs are on AWS:
// - `GET /charm-archives/<sha256>?expires=…&signature=…` streams an archive from the data directory;
// - `PUT /charm-uploads/<sha256>?size=…&expires=…&signature=…` streams an upload into it, kept
//   only if its length and sha256 are the ones signed, as S3 checks a presigned PUT's signed
//   `content-length` and `x-amz-checksum-sha256`.
// Both bypass the API Gateway event (embedded/api-server.ts), whose body is held in memory, so an
// archive of any size is streamed and never buffered.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DirectRoute } from './api-server.js';
import { VALID_KEY } from '#shared/charmstore/charm-store.js';
import { LOCAL_ARCHIVE_PATH, LOCAL_UPLOAD_PATH, type LocalCharmStore } from '#shared/charmstore/local-charm-store.js';
import { localUrlRefusal, type HttpMethod } from '#shared/charmstore/signed-local-url.js';

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  // `connection: close`: a refused upload's body is not read.
  res.writeHead(status, { 'content-type': 'application/json', ...(status >= 400 ? { connection: 'close' } : {}) });
  res.end(JSON.stringify(body));
}

function checkSigned(store: LocalCharmStore, method: HttpMethod, req: IncomingMessage, url: URL): string {
  if (req.method !== method) throw new Refusal(405, 'invalid-argument', `${url.pathname} takes ${method}, not ${req.method}`);
  const refusal = localUrlRefusal(store.urlKey, method, url.pathname, url.searchParams);
  if (refusal) throw new Refusal(403, 'unauthorized', `permission denied: ${refusal}`);
  const key = url.pathname.slice(url.pathname.indexOf('/', 1) + 1);
  if (!VALID_KEY.test(key)) throw new Refusal(404, 'not-found', `no charm archive ${key}`);
  return key;
}

async function serveArchive(store: LocalCharmStore, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const key = checkSigned(store, 'GET', req, url);
  const path = store.archivePath(key);
  const size = await stat(path).then(
    (s) => s.size,
    () => undefined,
  );
  if (size === undefined) throw new Refusal(404, 'not-found', `charm archive ${key} not found`);
  res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(size) });
  await pipeline(createReadStream(path), res);
}

async function takeUpload(store: LocalCharmStore, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const sha256 = checkSigned(store, 'PUT', req, url);
  const size = Number(url.searchParams.get('size'));
  const declared = req.headers['content-length'];
  if (declared !== String(size))
    throw new Refusal(
      400,
      'invalid-argument',
      `the upload must be sent with content-length ${size}, the size it was signed for (got ${declared ?? 'none'})`,
    );
  const checksum = req.headers['x-amz-checksum-sha256'];
  if (checksum !== undefined && checksum !== Buffer.from(sha256, 'hex').toString('base64'))
    throw new Refusal(400, 'invalid-argument', 'x-amz-checksum-sha256 is not the sha256 the upload was signed for');
  const destination = store.uploadPath(sha256);
  await mkdir(dirname(destination), { recursive: true, mode: 0o700 });
  const temporary = `${destination}.${process.pid}.${Date.now()}.tmp`;
  const hash = createHash('sha256');
  let received = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      // Never more than signed: the rest is not even written.
      if (received > size) done(new Refusal(400, 'invalid-argument', `the upload is longer than the ${size} bytes it was signed for`));
      else {
        hash.update(chunk);
        done(null, chunk);
      }
    },
  });
  try {
    await pipeline(req, counting, createWriteStream(temporary, { mode: 0o600 }));
    if (received !== size)
      throw new Refusal(400, 'invalid-argument', `the upload ended after ${received} of the ${size} bytes it was signed for`);
    const actual = hash.digest('hex');
    if (actual !== sha256)
      throw new Refusal(
        400,
        'invalid-argument',
        `the upload's sha256 is ${actual}, not ${sha256} as signed: upload the archive the URL was made for`,
      );
    await rename(temporary, destination);
  } finally {
    await rm(temporary, { force: true });
  }
  answer(res, 200, {});
}

export function charmFileRoutes(store: LocalCharmStore): DirectRoute {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = url.pathname.startsWith(LOCAL_ARCHIVE_PATH)
      ? serveArchive
      : url.pathname.startsWith(LOCAL_UPLOAD_PATH)
        ? takeUpload
        : undefined;
    if (!route) return false;
    try {
      await route(store, req, res, url);
    } catch (e) {
      if (!(e instanceof Refusal) || res.headersSent) throw e;
      answer(res, e.status, { error: { code: e.code, message: e.message } });
    }
    return true;
  };
}
