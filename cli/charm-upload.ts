// A packed charm on its way to the controller: hashed, then PUT straight to the charm store with
// the URL and headers `charm-upload` hands out (a presigned S3 PUT on AWS, a signed path on the
// local API server locally), so an archive of any size up to MAX_CHARM_ARCHIVE_BYTES travels
// outside the API's requests, which are bounded at a few megabytes. deploy and upgrade-charm then
// name it by its sha256 (`charm.upload`).
import { createHash } from 'node:crypto';
import type { UploadTarget } from '#shared/charmstore/charm-store.js';
import type { ApiClient } from './client.js';
import { CliError } from './errors.js';
import { errorMessage } from '#shared/domain/errors.js';

/** Uploads the archive; returns the sha256 that names it. */
export async function uploadCharm(client: ApiClient, archive: Buffer, signal?: AbortSignal): Promise<string> {
  const sha256 = createHash('sha256').update(archive).digest('hex');
  const target = await client.post<'charm-upload', UploadTarget>('charm-upload', { sha256, size: archive.length });
  // The local controller's URL is a path on its API server; S3's is absolute.
  const url = new URL(target.url, client.selected.controller.apiUrl);
  let response: Response;
  try {
    response = await fetch(url, { method: 'PUT', headers: target.headers, body: new Uint8Array(archive), ...(signal ? { signal } : {}) });
  } catch (e) {
    if (signal?.aborted) throw new CliError('interrupted');
    const cause = (e as { cause?: { message?: string } }).cause?.message ?? errorMessage(e);
    throw new CliError(`cannot upload the charm to ${url.host}: ${cause}`);
  }
  if (!response.ok) {
    const text = (await response.text().catch(() => '')).slice(0, 500);
    throw new CliError(`cannot upload the charm to ${url.host}: HTTP ${response.status} ${text}`);
  }
  return sha256;
}
