// A file from a URL the API handed out (a presigned S3 GET on AWS, a signed path on the local API
// server): plain HTTP with no credentials, since the URL is the permission. Streamed to a
// temporary file while it is hashed, so a file of any size takes no memory, and renamed into place
// only when its digest is the one asked for: a cut-off or corrupted download is never mistaken for
// the file. Charm archives (sha256) and resources (SHA-384, Juju's fingerprint) come this way.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { bodyStream, bodyText, ok, requestTo, type HttpSend } from './http.js';

export interface VerifiedDownload {
  url: string;
  algorithm: 'sha256' | 'sha384';
  /** The hex digest the file must have. */
  digest: string;
  destination: string;
  mode: number;
  /** The error messages: an answer other than 200, and content with another digest. */
  failed(status: number, body: string): string;
  corrupted(actual: string): string;
}

export async function downloadVerified(download: VerifiedDownload, send: HttpSend): Promise<void> {
  const res = await send(requestTo(new URL(download.url), { method: 'GET' }));
  if (!ok(res)) {
    const text = await bodyText(res).catch(() => '');
    throw new Error(download.failed(res.statusCode, text.slice(0, 300)));
  }
  const hash = createHash(download.algorithm);
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const temporary = `${download.destination}.${process.pid}.download`;
  try {
    await pipeline(bodyStream(res), hashing, createWriteStream(temporary, { mode: download.mode }));
    const actual = hash.digest('hex');
    if (actual !== download.digest) throw new Error(download.corrupted(actual));
    await rename(temporary, download.destination);
  } finally {
    await rm(temporary, { force: true });
  }
}
