// A resource's bytes as deploy --resource and attach-resource receive them: uploaded beforehand
// to the charm store exactly as a charm is (`charm-upload`, a presigned PUT bounded to the size
// and sha256 it was signed for), then read here as they stream, never whole, to take Juju's
// fingerprint (SHA-384) and size, and only then kept under their sha256 beside the charm archives:
// content stored once, whoever uploads it again. A missing upload, or one whose bytes are not
// the sha256 named, is refused and nothing is kept.
import { createHash } from 'node:crypto';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import { invalidArgument } from '#shared/domain/errors.js';
import { MAX_RESOURCE_BYTES, type ApplicationResource } from '#shared/domain/resources.js';

/** The sha256 of no bytes: an empty file is never uploaded (an upload has a byte at least), only named. */
export const EMPTY_SHA256 = createHash('sha256').digest('hex');

export async function adoptResourceUpload(
  charms: CharmStore,
  name: string,
  sha256: string,
  now: Date,
): Promise<Omit<ApplicationResource, 'revision'>> {
  if (sha256 === EMPTY_SHA256) {
    await charms.put(Buffer.alloc(0));
    return { sha256, fingerprint: createHash('sha384').digest('hex'), size: 0, timestamp: now.toISOString() };
  }
  const upload = await charms.openUpload(sha256);
  if (!upload)
    throw invalidArgument(
      `resource "${name}": no upload with sha256 ${sha256}: ask charm-upload for a URL and PUT the file first (uploads are kept a day)`,
    );
  const sha256Hash = createHash('sha256');
  const sha384Hash = createHash('sha384');
  let size = 0;
  for await (const chunk of upload) {
    size += chunk.length;
    // The store bounds an upload to its signed size; checked again, as nothing larger may be kept.
    if (size > MAX_RESOURCE_BYTES) throw invalidArgument(`resource "${name}": the file is larger than ${MAX_RESOURCE_BYTES} bytes`);
    sha256Hash.update(chunk);
    sha384Hash.update(chunk);
  }
  const actual = sha256Hash.digest('hex');
  if (actual !== sha256) throw invalidArgument(`resource "${name}": the upload named ${sha256} has sha256 ${actual}: upload it again`);
  await charms.adoptUpload(sha256);
  return { sha256, fingerprint: sha384Hash.digest('hex'), size, timestamp: now.toISOString() };
}

/** Every upload of a request, adopted in name order: resource name → its content. */
export async function adoptResourceUploads(
  charms: CharmStore,
  uploads: Record<string, string>,
  now: Date,
): Promise<Record<string, Omit<ApplicationResource, 'revision'>>> {
  const adopted: Record<string, Omit<ApplicationResource, 'revision'>> = {};
  // Two resources of the same content share one upload, which is kept (moved) once.
  const bySha = new Map<string, Omit<ApplicationResource, 'revision'>>();
  for (const name of Object.keys(uploads).sort()) {
    const sha256 = uploads[name]!;
    const content = bySha.get(sha256) ?? (await adoptResourceUpload(charms, name, sha256, now));
    bySha.set(sha256, content);
    adopted[name] = content;
  }
  return adopted;
}
