import { describe, expect, it } from 'vitest';
import {
  deviceCandidates,
  findVolumeDevice,
  prepareEbsStorage,
  releaseEbsStorage,
  type EbsHost,
} from '../../../agent/storage/ebs-volume.js';
import { errorMessage } from '#shared/domain/errors.js';
import { FakeClock } from '../../support/fake-clock.js';

const NVME = '/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0';
const volume = { volumeId: 'vol-0123456789abcdef0', device: '/dev/sdf' };

/** A machine: the paths that exist, where links lead, what is mounted, what each command answers. */
function fakeHost(
  options: { paths?: string[]; links?: Record<string, string>; signature?: boolean; mounted?: Record<string, string> } = {},
) {
  const paths = new Set(options.paths ?? [NVME]);
  const mounted = new Map(Object.entries(options.mounted ?? {}));
  let signature = options.signature ?? false;
  const ran: string[] = [];
  const made: string[] = [];
  const host: EbsHost = {
    exists: async (path) => paths.has(path),
    realpath: async (path) => options.links?.[path] ?? path,
    mkdir: async (path, mode) => {
      made.push(`${path} ${mode.toString(8)}`);
    },
    run: async (command, args) => {
      ran.push([command, ...args].join(' '));
      const ok = { code: 0, stdout: '', stderr: '' };
      switch (command) {
        case 'blkid':
          return signature ? { ...ok, stdout: `${args[1]}: TYPE="ext4"\n` } : { code: 2, stdout: '', stderr: '' };
        case 'mkfs.ext4':
          signature = true;
          return ok;
        case 'findmnt': {
          const source = mounted.get(args.at(-1)!);
          return source ? { ...ok, stdout: `${source}\n` } : { code: 1, stdout: '', stderr: '' };
        }
        case 'mount':
          mounted.set(args[1]!, args[0]!);
          return ok;
        case 'umount':
          mounted.delete(args[0]!);
          return ok;
        default:
          return { code: 127, stdout: '', stderr: `${command}: not found` };
      }
    },
  };
  return { host, ran, made, mounted, paths };
}

const filesystem = { kind: 'filesystem' as const, volume, location: '/var/lib/juju/storage/data-0' };

describe('an EBS volume on its machine', () => {
  it('is looked for by its NVMe link, then as Xen renames the name asked for, then as asked', () => {
    expect(deviceCandidates(volume)).toEqual([NVME, '/dev/xvdf', '/dev/sdf']);
    expect(deviceCandidates({ volumeId: 'vol-1' })).toEqual(['/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol1']);
  });

  it('is waited for, a bounded time, until the kernel shows it', async () => {
    const clock = new FakeClock();
    const { host } = fakeHost({ paths: [] });
    const found = findVolumeDevice(volume, host, clock, { withinMs: 3_000, pollMs: 1_000 });
    const outcome = found.then(
      (path) => path,
      (e: unknown) => errorMessage(e),
    );
    await clock.advance(3_000);
    expect(await outcome).toBe(
      `volume vol-0123456789abcdef0 is attached but not visible on this machine (looked for ${NVME}, /dev/xvdf, /dev/sdf)`,
    );
    const late = fakeHost({ paths: [] });
    const later = findVolumeDevice(volume, late.host, clock, { withinMs: 3_000, pollMs: 1_000 });
    await clock.advance(1_000);
    // The device appears, on a Xen instance under its renamed name, before the bound.
    late.paths.add('/dev/xvdf');
    await clock.advance(1_000);
    expect(await later).toBe('/dev/xvdf');
  });

  it('gets an ext4 filesystem when blank, is mounted at its location made 0755, and answers the location', async () => {
    const { host, ran, made, mounted } = fakeHost({ links: { [NVME]: '/dev/nvme1n1' } });
    expect(await prepareEbsStorage(filesystem, host, new FakeClock())).toBe('/var/lib/juju/storage/data-0');
    expect(ran).toEqual([
      'blkid --probe /dev/nvme1n1',
      'mkfs.ext4 -q /dev/nvme1n1',
      'findmnt --noheadings --output SOURCE --mountpoint /var/lib/juju/storage/data-0',
      'mount /dev/nvme1n1 /var/lib/juju/storage/data-0',
    ]);
    expect(made).toEqual(['/var/lib/juju/storage/data-0 755']);
    expect(mounted.get('/var/lib/juju/storage/data-0')).toBe('/dev/nvme1n1');
  });

  it('is never formatted twice, nor mounted twice: a second run (a restarted agent) changes nothing', async () => {
    const machine = fakeHost({ links: { [NVME]: '/dev/nvme1n1' } });
    await prepareEbsStorage(filesystem, machine.host, new FakeClock());
    machine.ran.length = 0;
    expect(await prepareEbsStorage(filesystem, machine.host, new FakeClock())).toBe(filesystem.location);
    expect(machine.ran.filter((c) => c.startsWith('mkfs') || c.startsWith('mount'))).toEqual([]);
  });

  it('keeps what a disk holds: one with a filesystem (a persistent volume attached again) is mounted, not formatted', async () => {
    const { host, ran } = fakeHost({ signature: true });
    await prepareEbsStorage(filesystem, host, new FakeClock());
    expect(ran.some((c) => c.startsWith('mkfs'))).toBe(false);
    expect(ran.at(-1)).toBe(`mount ${NVME} /var/lib/juju/storage/data-0`);
  });

  it('refuses a location something else is mounted at', async () => {
    const { host } = fakeHost({ mounted: { '/var/lib/juju/storage/data-0': '/dev/nvme9n1' } });
    await expect(prepareEbsStorage(filesystem, host, new FakeClock())).rejects.toThrow(
      'cannot mount volume vol-0123456789abcdef0 at /var/lib/juju/storage/data-0: /dev/nvme9n1 is mounted there',
    );
  });

  it('as block storage is its device, untouched', async () => {
    const { host, ran } = fakeHost();
    expect(await prepareEbsStorage({ ...filesystem, kind: 'block' }, host, new FakeClock())).toBe(NVME);
    expect(ran).toEqual([]);
  });

  it('is unmounted before it is detached; one not mounted, or block storage, has nothing to undo', async () => {
    const { host, ran, mounted } = fakeHost({ mounted: { '/srv/data': '/dev/nvme1n1' } });
    await releaseEbsStorage({ kind: 'filesystem', location: '/srv/data' }, host);
    expect(mounted.has('/srv/data')).toBe(false);
    await releaseEbsStorage({ kind: 'filesystem', location: '/srv/data' }, host);
    await releaseEbsStorage({ kind: 'block', location: '/srv/data' }, host);
    expect(ran.filter((c) => c.startsWith('umount'))).toEqual(['umount /srv/data']);
  });

  it('says what a failed command said', async () => {
    const { host } = fakeHost();
    host.run = async (command) =>
      command === 'blkid'
        ? { code: 2, stdout: '', stderr: '' }
        : { code: 1, stdout: '', stderr: 'mkfs.ext4: Device size reported to be zero.\n' };
    await expect(prepareEbsStorage(filesystem, host, new FakeClock())).rejects.toThrow(
      `mkfs.ext4 ${NVME} failed (exit 1): mkfs.ext4: Device size reported to be zero.`,
    );
  });
});
