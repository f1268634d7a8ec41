// An EBS volume on the EC2 instance it is attached to: found by its volume id, given an ext4
// filesystem once, mounted at its location. On Nitro instances a volume is an NVMe device whose
// udev link names the volume id without its dash
// (https://docs.aws.amazon.com/ebs/latest/userguide/identify-nvme-ebs-device.html); on Xen
// instances it keeps the device name it was attached with, `/dev/sdf` showing as `/dev/xvdf`.
import { mustRun, type MachineIo } from './machine-io.js';

/** `/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123...` for `vol-0123...`. */
export const nvmeLinkOf = (volumeId: string): string => `/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${volumeId.replace('-', '')}`;

/** The volume's device on this machine, or undefined while it has not appeared. */
export function findVolumeDevice(io: MachineIo, volume: { volumeId: string; device?: string }): string | undefined {
  const candidates = [nvmeLinkOf(volume.volumeId)];
  if (volume.device !== undefined) candidates.push(volume.device, volume.device.replace(/^\/dev\/sd/, '/dev/xvd'));
  return candidates.find((path) => io.exists(path));
}

/**
 * mkfs.ext4, only on a device that holds no filesystem yet: a volume that kept its data (a
 * persistent one attached again, an agent restarted after mkfs) is never formatted twice.
 * blkid exits 2 when it finds nothing on the device.
 */
export async function ensureExt4(io: MachineIo, device: string): Promise<void> {
  const probe = await io.run('blkid', ['-p', '-s', 'TYPE', '-o', 'value', device]);
  if (probe.code === 0 && probe.stdout.trim() !== '') return;
  if (probe.code !== 2) throw new Error(`blkid ${device}: ${probe.stderr.trim() || `exit status ${probe.code}`}`);
  await mustRun(io, 'mkfs.ext4', ['-q', device]);
}

/** Whether something is mounted at `path` (findmnt exits 1 when nothing is). */
export async function isMounted(io: MachineIo, path: string): Promise<boolean> {
  const found = await io.run('findmnt', ['-rn', '--mountpoint', path]);
  return found.code === 0;
}

/** `source` mounted at `mountPoint` (made 0755 if missing), unless something already is; `bind` for a directory. */
export async function ensureMounted(io: MachineIo, source: string, mountPoint: string, options: { bind?: boolean } = {}): Promise<void> {
  io.mkdirp(mountPoint, 0o755);
  if (await isMounted(io, mountPoint)) return;
  await mustRun(io, 'mount', options.bind ? ['--bind', source, mountPoint] : [source, mountPoint]);
}

export async function ensureUnmounted(io: MachineIo, mountPoint: string): Promise<void> {
  if (await isMounted(io, mountPoint)) await mustRun(io, 'umount', [mountPoint]);
}
