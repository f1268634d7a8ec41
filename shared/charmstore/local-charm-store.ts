// The local controller's charm store: `<directory>/<sha256>.tar.gz`, and URLs on the local API
// server for them, signed with a key of the controller's (./signed-local-url.ts), that
// embedded/charm-files.ts serves.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveKey, VALID_KEY, type CharmStore } from './charm-store.js';
import { signLocalUrl } from './signed-local-url.js';

/** Where the local API server serves archives: `GET /charm-archives/<sha256>?expires=…&signature=…`. */
export const LOCAL_ARCHIVE_PATH = '/charm-archives/';

export interface LocalCharmStore extends CharmStore {
  readonly directory: string;
  /** The key its URLs are signed with. */
  readonly urlKey: string;
  archivePath(key: string): string;
}

/**
 * `urlKey` signs the URLs it makes: the local controller keeps one in its data directory, so URLs
 * survive its restart; without one, a key for this process alone.
 */
export function localCharmStore(directory: string, urlKey = randomBytes(32).toString('hex')): LocalCharmStore {
  const archivePath = (key: string) => join(directory, `${key}.tar.gz`);
  return {
    directory,
    urlKey,
    archivePath,
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
      if (!VALID_KEY.test(key)) throw new Error(`not a charm archive key: ${key}`);
      return signLocalUrl(urlKey, 'GET', `${LOCAL_ARCHIVE_PATH}${key}`);
    },
  };
}
