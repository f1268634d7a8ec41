// Storage on the machine: what the agent does before it reports an attachment `storage-attached`
// and after its storage-detaching hook, before it reports `storage-detached`
// (docs/agents.md, "Storage").
// - rootfs, under the local provider: a directory `<machine dir>/storage/<name>/<n>`, made 0755;
//   a charm's `location:` is not used there (the controller's user cannot mount, and the machines
//   share one host), so the charm reads its location from storage-get, as it should anyway.
// - rootfs on EC2 (the agent is root): `/var/lib/juju/storage/<name>/<n>`; with a `location:` the
//   directory is bind-mounted there, as Juju's rootfs provider does
//   (https://github.com/juju/juju/blob/3.6/internal/storage/provider/rootfs.go, attachFilesystem).
// - ebs (EC2): the volume's device, found by its volume id; a filesystem gets ext4 once and is
//   mounted at its location (Juju's mount point rules, ./mount-point.ts); block storage's location
//   is the device itself. Released: unmounted, so the provisioner can detach the volume.
import { posix } from 'node:path';
import type { CharmStorageMeta } from './charm-storage.js';
import { ensureExt4, ensureMounted, ensureUnmounted, findVolumeDevice } from './ebs-volume.js';
import { systemMachineIo, type MachineIo } from './machine-io.js';
import { filesystemMountPoint } from './mount-point.js';
import { isValidStorageId, type UnitStorage } from './unit-storage.js';

export interface MachineStorageConfig {
  /** `<machine dir>/storage` locally, `/var/lib/juju/storage` on EC2. */
  dir: string;
  provider: 'local' | 'ec2';
}

/** Juju's storage directory on a machine (paths.StorageDir). */
export const EC2_STORAGE_DIR = '/var/lib/juju/storage';

/** The storage cannot be made ready yet (its volume has not appeared on the machine): try again later. */
export class StorageNotReady extends Error {}

export class MachineStorage {
  constructor(
    private readonly config: MachineStorageConfig,
    private readonly io: MachineIo = systemMachineIo,
  ) {}

  /** Makes the storage ready on the machine; its location. Safe to repeat. */
  async prepare(storage: UnitStorage, meta: CharmStorageMeta): Promise<string> {
    // The id becomes part of a path the agent creates: only Juju's `<name>/<n>` may.
    if (!isValidStorageId(storage.id)) throw new Error(`invalid storage ID ${JSON.stringify(storage.id)}`);
    if (storage.pool === 'ebs') return this.prepareVolume(storage, meta);
    if (storage.kind === 'block') throw new Error(`block storage from pool "${storage.pool}" is not supported on this machine`);
    const source = posix.join(this.config.dir, storage.id);
    this.io.mkdirp(source, 0o755);
    if (this.config.provider === 'local') return source;
    const mountPoint = filesystemMountPoint(this.config.dir, meta, storage.id);
    if (mountPoint !== source) await ensureMounted(this.io, source, mountPoint, { bind: true });
    return mountPoint;
  }

  /** Lets go of the storage's location on the machine: what was mounted there is unmounted. Safe to repeat. */
  async release(storage: UnitStorage): Promise<void> {
    if (this.config.provider === 'local' || storage.kind === 'block' || storage.location === undefined) return;
    if (storage.pool === 'ebs' || storage.location !== posix.join(this.config.dir, storage.id))
      await ensureUnmounted(this.io, storage.location);
  }

  private async prepareVolume(storage: UnitStorage, meta: CharmStorageMeta): Promise<string> {
    const device = storage.volume ? findVolumeDevice(this.io, storage.volume) : undefined;
    if (device === undefined) throw new StorageNotReady(`storage ${storage.id}: its volume has not appeared on the machine yet`);
    if (storage.kind === 'block') return device;
    const mountPoint = filesystemMountPoint(this.config.dir, meta, storage.id);
    await ensureExt4(this.io, device);
    await ensureMounted(this.io, device, mountPoint);
    return mountPoint;
  }
}
