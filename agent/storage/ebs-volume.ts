// An EBS volume on the EC2 machine it is attached to: found, given a filesystem once, mounted at
// the storage's location, and unmounted before it is detached. The provisioner attaches the volume
// and records its id and the device name it asked for (shared/provisioner/provision-volume.ts);
// the device the kernel makes is another name on Nitro instances, where EBS volumes are NVMe
// disks. Juju finds them by the link udev makes from the volume id, and by the asked name
// (/dev/sdf shows as /dev/xvdf) on Xen instances
// (https://github.com/juju/juju/blob/3.6/internal/provider/ec2/ebs.go, AttachVolumes), and mounts
// a filesystem as https://github.com/juju/juju/blob/3.6/internal/storage/provider/managedfs.go does.
//
// Every step is safe to repeat (a restarted agent runs it again): a disk that holds anything (a
// filesystem, a partition table) is never formatted, and a location already mounted from the
// disk is left as it is. Unlike Juju, drover makes the filesystem on the whole disk (no
// partition) and writes no /etc/fstab entry: the agent mounts its storage again when it starts.
import { execFile } from 'node:child_process';
import { access, mkdir, realpath } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import { errorMessage } from '#shared/domain/errors.js';

/** What the agent does on the machine, replaced in tests. */
export interface EbsHost {
  exists(path: string): Promise<boolean>;
  /** The device a link names. */
  realpath(path: string): Promise<string>;
  mkdir(path: string, mode: number): Promise<void>;
  /** Runs a command to its end; a non-zero exit is answered, not thrown. */
  run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** The volume as the unit's agent view carries it (the storage contract's `volume`). */
export interface AttachedVolume {
  volumeId: string;
  device?: string;
}

/** How long to look for a volume EC2 says is attached before the kernel shows it, and how often. */
export interface DeviceWait {
  withinMs: number;
  pollMs: number;
}
export const DEFAULT_DEVICE_WAIT: DeviceWait = { withinMs: 60_000, pollMs: 1_000 };

const NVME_LINK_PREFIX = '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_';

/**
 * Where the volume may show, most stable first: the NVMe link (its serial is the volume id
 * without its dash), then the name asked for as Xen instances rename it (/dev/sdf → /dev/xvdf),
 * then as asked.
 */
export function deviceCandidates(volume: AttachedVolume): string[] {
  const candidates = [NVME_LINK_PREFIX + volume.volumeId.replace('-', '')];
  if (volume.device?.startsWith('/dev/sd')) candidates.push(`/dev/xvd${volume.device.slice('/dev/sd'.length)}`);
  if (volume.device) candidates.push(volume.device);
  return candidates;
}

/** The first place the volume shows, waiting a bounded time for the kernel to make it. */
export async function findVolumeDevice(volume: AttachedVolume, host: EbsHost, clock: Clock, wait = DEFAULT_DEVICE_WAIT): Promise<string> {
  const candidates = deviceCandidates(volume);
  const deadline = clock.now() + wait.withinMs;
  for (;;) {
    for (const path of candidates) if (await host.exists(path)) return path;
    if (clock.now() >= deadline)
      throw new Error(`volume ${volume.volumeId} is attached but not visible on this machine (looked for ${candidates.join(', ')})`);
    await clock.sleep(wait.pollMs);
  }
}

const failed = (what: string, result: { code: number; stderr: string }) =>
  new Error(`${what} failed (exit ${result.code}): ${result.stderr.trim()}`);

/** The device mounted at `location`, or undefined when nothing is. */
async function mountedSource(host: EbsHost, location: string): Promise<string | undefined> {
  const result = await host.run('findmnt', ['--noheadings', '--output', 'SOURCE', '--mountpoint', location]);
  if (result.code === 1) return undefined;
  if (result.code !== 0) throw failed(`findmnt ${location}`, result);
  return result.stdout.trim();
}

/**
 * Makes the attached volume the storage's: for block storage, the location is the device (its
 * stable link, as Juju's storage-get shows a block device); for filesystem storage, the disk gets
 * an ext4 filesystem if it holds nothing yet and is mounted at `location` (made 0755). Answers
 * the location to report with `storage-attached`.
 */
export async function prepareEbsStorage(
  storage: { kind: 'filesystem' | 'block'; volume: AttachedVolume; location: string },
  host: EbsHost,
  clock: Clock,
  wait = DEFAULT_DEVICE_WAIT,
): Promise<string> {
  const found = await findVolumeDevice(storage.volume, host, clock, wait);
  if (storage.kind === 'block') return found;
  const disk = await host.realpath(found);
  // blkid's low-level probe answers 2 for a device with no signature at all: only that is formatted.
  const probe = await host.run('blkid', ['--probe', disk]);
  if (probe.code === 2) {
    const made = await host.run('mkfs.ext4', ['-q', disk]);
    if (made.code !== 0) throw failed(`mkfs.ext4 ${disk}`, made);
  } else if (probe.code !== 0) {
    throw failed(`blkid ${disk}`, probe);
  }
  await host.mkdir(storage.location, 0o755);
  const source = await mountedSource(host, storage.location);
  if (source !== undefined) {
    if ((await host.realpath(source)) === disk) return storage.location;
    throw new Error(`cannot mount volume ${storage.volume.volumeId} at ${storage.location}: ${source} is mounted there`);
  }
  const mounted = await host.run('mount', [disk, storage.location]);
  if (mounted.code !== 0) throw failed(`mount ${disk} ${storage.location}`, mounted);
  return storage.location;
}

/** Unmounts filesystem storage before its volume is detached (Juju's maybeUnmount); block storage has nothing to undo. */
export async function releaseEbsStorage(storage: { kind: 'filesystem' | 'block'; location: string }, host: EbsHost): Promise<void> {
  if (storage.kind === 'block') return;
  if ((await mountedSource(host, storage.location)) === undefined) return;
  const result = await host.run('umount', [storage.location]);
  if (result.code !== 0) throw failed(`umount ${storage.location}`, result);
}

/** The machine itself (the agent runs as root on EC2 instances). */
export const systemEbsHost: EbsHost = {
  exists: (path) =>
    access(path).then(
      () => true,
      () => false,
    ),
  realpath: (path) => realpath(path),
  mkdir: async (path, mode) => {
    await mkdir(path, { recursive: true, mode });
  },
  run: (command, args) =>
    new Promise((resolve) => {
      execFile(command, args, { encoding: 'utf8' }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
        resolve({ code, stdout, stderr: stderr || (error && code === 127 ? errorMessage(error) : '') });
      });
    }),
};
