// Where a filesystem storage instance is mounted, as Juju's storage provisioner decides it
// (FilesystemMountPoint, https://github.com/juju/juju/blob/3.6/internal/worker/storageprovisioner/common.go):
// the charm's `location` as it is for a singleton store, `<location>/<id>` for one of many, and
// `<storage dir>/<id>` (`/var/lib/juju/storage/data/0`) when the charm gives none. A location
// inside the storage directory is refused.
import { posix } from 'node:path';
import type { CharmStorageMeta } from './charm-storage.js';

export function filesystemMountPoint(storageDir: string, meta: CharmStorageMeta, id: string): string {
  const { location } = meta;
  if (location !== undefined && (location === storageDir || location.startsWith(`${storageDir}/`)))
    throw new Error(`invalid location ${JSON.stringify(location)}: must not fall within ${JSON.stringify(storageDir)}`);
  if (location !== undefined && meta.singleton) return location;
  return posix.join(location ?? storageDir, id);
}
