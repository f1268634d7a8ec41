// The local controller's charm store: `<directory>/<sha256>.tar.gz`, uploads waiting to be checked
// in `<directory>/uploads/<sha256>`, and URLs on the local API server for both, signed with a key
// of the controller's (./signed-local-url.ts), that embedded/charm-files.ts serves.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_CHARM_ARCHIVE_BYTES } from './charm-archive-stream.js';
import { archiveKey, uploadHeaders, VALID_KEY, type CharmStore } from './charm-store.js';
import { CHARM_UPLOAD_URL_SECONDS, signLocalUrl } from './signed-local-url.js';

/** Where the local API server serves archives: `GET /charm-archives/<sha256>?expires=…&signature=…`. */
export const LOCAL_ARCHIVE_PATH = '/charm-archives/';
/** Where it takes uploads: `PUT /charm-uploads/<sha256>?size=…&expires=…&signature=…`. */
export const LOCAL_UPLOAD_PATH = '/charm-uploads/';

export interface LocalCharmStore extends CharmStore {
  readonly directory: string;
  /** The key its URLs are signed with. */
  readonly urlKey: string;
  archivePath(key: string): string;
  uploadPath(sha256: string): string;
}

function checkedKey(key: string): string {
  if (!VALID_KEY.test(key)) throw new Error(`not a charm archive key: ${key}`);
  return key;
}

/** How long an upload never deployed is kept, as the AWS bucket's lifecycle rule keeps it (infra/charm-store.ts). */
export const UPLOAD_KEPT_MS = 24 * 60 * 60 * 1000;

/** Deletes uploads older than UPLOAD_KEPT_MS: done as a new upload is asked for, so none outlives a day by much. */
async function sweepStaleUploads(dir: string, now = Date.now()): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const path = join(dir, name);
    const modified = (await stat(path).catch(() => undefined))?.mtimeMs;
    if (modified !== undefined && now - modified > UPLOAD_KEPT_MS) await rm(path, { force: true });
  }
}

/**
 * `urlKey` signs the URLs it makes: the local controller keeps one in its data directory, so URLs
 * survive its restart; without one, a key for this process alone.
 */
export function localCharmStore(directory: string, urlKey = randomBytes(32).toString('hex')): LocalCharmStore {
  const archivePath = (key: string) => join(directory, `${checkedKey(key)}.tar.gz`);
  const uploadPath = (sha256: string) => join(directory, 'uploads', checkedKey(sha256));
  return {
    directory,
    urlKey,
    archivePath,
    uploadPath,
    async put(archive) {
      const key = archiveKey(archive);
      await mkdir(directory, { recursive: true });
      // Write then rename: a reader never sees half an archive.
      const temporary = join(directory, `${key}.${process.pid}.tmp`);
      await writeFile(temporary, archive);
      await rename(temporary, archivePath(key));
      return key;
    },
    async get(key) {
      if (!VALID_KEY.test(key)) return undefined;
      return readFile(archivePath(key)).catch(() => undefined);
    },
    async downloadUrl(key) {
      return signLocalUrl(urlKey, 'GET', `${LOCAL_ARCHIVE_PATH}${checkedKey(key)}`);
    },
    async uploadTarget(sha256, size) {
      await sweepStaleUploads(join(directory, 'uploads'));
      if (!Number.isInteger(size) || size < 1 || size > MAX_CHARM_ARCHIVE_BYTES) throw new Error(`not a charm archive size: ${size}`);
      const url = signLocalUrl(
        urlKey,
        'PUT',
        `${LOCAL_UPLOAD_PATH}${checkedKey(sha256)}`,
        { size: String(size) },
        { seconds: CHARM_UPLOAD_URL_SECONDS },
      );
      return { url, headers: uploadHeaders(sha256, size) };
    },
    async openUpload(sha256) {
      const path = uploadPath(sha256);
      if (
        !(await access(path).then(
          () => true,
          () => false,
        ))
      )
        return undefined;
      return createReadStream(path);
    },
    async discardUpload(sha256) {
      await rm(uploadPath(sha256), { force: true });
    },
    async adoptUpload(sha256) {
      // The same directory, so a rename: the upload becomes the archive at once, never half of it.
      await rename(uploadPath(sha256), archivePath(sha256));
      return sha256;
    },
  };
}
