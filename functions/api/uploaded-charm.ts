// A charm archive uploaded to the charm store beforehand (`charm-upload`, then deploy or
// upgrade-charm with `charm.upload`): read as it streams from the store, never whole, so a
// gigabyte takes no more memory than a kilobyte; checked as agents will unpack it
// (shared/charmstore/charm-archive.ts), and only then kept as the archive of its sha256. A
// missing, invalid or hostile upload is refused and nothing is kept.
import { charmEntries, type ArchiveEntry } from '#shared/charmstore/charm-archive-rules.js';
import { readCharmArchiveStream } from '#shared/charmstore/charm-archive-stream.js';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import { DroverError, invalidArgument, errorMessage } from '#shared/domain/errors.js';

/** A zip starts `PK\x03\x04` (or `PK\x05\x06` when empty). */
const ZIP_MAGIC = Buffer.from('PK');

export const invalidArchive = (e: unknown) => invalidArgument(`invalid charm archive: ${errorMessage(e).replace(/^charm archive: /, '')}`);

/** Refuses an archive agents would refuse to unpack (shared/charmstore/charm-archive-rules.ts), in the API's words. */
export function refuseHostileEntries(entries: readonly ArchiveEntry[]): void {
  try {
    charmEntries(entries);
  } catch (e) {
    throw invalidArchive(e);
  }
}

/** The upload's bytes, with its first bytes looked at: a zip is refused before it is gunzipped. */
async function* refusingZip(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let first = true;
  for await (const chunk of bytes) {
    if (first && chunk.length >= 2 && Buffer.from(chunk.subarray(0, 2)).equals(ZIP_MAGIC))
      throw invalidArgument('the uploaded charm is a zip (a .charm): convert it to a tar.gz and upload that (the drover CLI does)');
    first = false;
    yield chunk;
  }
}

/** Checks the upload of `sha256` as it streams and keeps it as that archive; returns its key. */
export async function adoptCheckedUpload(charms: CharmStore, sha256: string): Promise<string> {
  const upload = await charms.openUpload(sha256);
  if (!upload)
    throw invalidArgument(
      `no charm upload with sha256 ${sha256}: ask charm-upload for a URL and PUT the archive first (uploads are kept a day)`,
    );
  try {
    let read;
    try {
      read = await readCharmArchiveStream(refusingZip(upload));
    } catch (e) {
      if (e instanceof DroverError) throw e;
      throw invalidArchive(e);
    }
    // The store checks the bytes against the sha256 on upload; checked again, as nothing else may be kept under it.
    if (read.sha256 !== sha256) throw invalidArgument(`the upload named ${sha256} has sha256 ${read.sha256}: upload it again`);
    refuseHostileEntries(read.entries);
  } catch (e) {
    // A refused upload is deleted at once: it would be refused again, and kept it only takes room.
    if (e instanceof DroverError) await charms.discardUpload(sha256);
    throw e;
  }
  return charms.adoptUpload(sha256);
}
