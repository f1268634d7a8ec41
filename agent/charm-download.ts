// One charm archive from the URL the API handed out (a presigned S3 GET on AWS, a signed path on
// the local API server): plain HTTP with no credentials, since the URL is the permission. Streamed
// to a temporary file while it is hashed, so an archive of any size takes no memory, and renamed
// into place only when its sha256 is the one asked for: a cut-off or corrupted download is never
// mistaken for the charm.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { bodyStream, bodyText, ok, requestTo, type HttpSend } from './http.js';

export async function downloadVerified(url: string, sha256: string, destination: string, send: HttpSend): Promise<void> {
  const res = await send(requestTo(new URL(url), { method: 'GET' }));
  if (!ok(res)) {
    const text = await bodyText(res).catch(() => '');
    throw new Error(`cannot download charm archive ${sha256}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
  }
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const temporary = `${destination}.${process.pid}.download`;
  try {
    await pipeline(bodyStream(res), hashing, createWriteStream(temporary, { mode: 0o600 }));
    const actual = hash.digest('hex');
    if (actual !== sha256) throw new Error(`charm archive ${sha256} arrived corrupted (sha256 ${actual})`);
    await rename(temporary, destination);
  } finally {
    await rm(temporary, { force: true });
  }
}
