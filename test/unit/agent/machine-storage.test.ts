// Storage made ready on the machine (agent/storage/machine-storage.ts), with the machine faked
// (its commands and files): rootfs directories locally and on EC2 (bind-mounted at a charm's
// `location:` there, as Juju's rootfs provider does), EBS volumes found by volume id, given ext4
// only once and mounted at Juju's mount point, and let go again by unmounting.
import { describe, expect, it } from 'vitest';
import { charmStorageMeta } from '../../../agent/storage/charm-storage.js';
import { nvmeLinkOf } from '../../../agent/storage/ebs-volume.js';
import type { CommandResult, MachineIo } from '../../../agent/storage/machine-io.js';
import { EC2_STORAGE_DIR, MachineStorage, StorageNotReady } from '../../../agent/storage/machine-storage.js';
import { filesystemMountPoint } from '../../../agent/storage/mount-point.js';
import type { UnitStorage } from '../../../agent/storage/unit-storage.js';
import { application } from '../plans/relation-fixtures.js';

/** A machine: devices and directories that exist, what is mounted where, and every command run. */
class FakeMachine implements MachineIo {
  readonly paths = new Set<string>();
  readonly mounts = new Map<string, string>();
  readonly formatted = new Set<string>();
  readonly commands: string[] = [];
  readonly dirs: [string, number][] = [];

  async run(command: string, args: string[]): Promise<CommandResult> {
    this.commands.push([command, ...args].join(' '));
    const last = args[args.length - 1]!;
    const ok = (stdout = '') => ({ code: 0, stdout, stderr: '' });
    switch (command) {
      case 'blkid':
        return this.formatted.has(last) ? ok('ext4\n') : { code: 2, stdout: '', stderr: '' };
      case 'mkfs.ext4':
        this.formatted.add(last);
        return ok();
      case 'findmnt':
        return this.mounts.has(last) ? ok(`${last} ${this.mounts.get(last)}\n`) : { code: 1, stdout: '', stderr: '' };
      case 'mount':
        this.mounts.set(last, args[args.length - 2]!);
        return ok();
      case 'umount':
        this.mounts.delete(last);
        return ok();
    }
    return { code: 127, stdout: '', stderr: `${command}: not found` };
  }
  mkdirp(path: string, mode: number) {
    this.dirs.push([path, mode]);
    this.paths.add(path);
  }
  exists(path: string) {
    return this.paths.has(path);
  }
}

const storage = (id: string, fields: Partial<UnitStorage> = {}): UnitStorage => ({
  id,
  name: id.split('/')[0]!,
  kind: 'filesystem',
  pool: 'rootfs',
  size: 1024,
  life: 'alive',
  ...fields,
});
const single = { singleton: true };
const ec2 = (machine: FakeMachine) => new MachineStorage({ dir: EC2_STORAGE_DIR, provider: 'ec2' }, machine);

describe('mount points, as Juju decides them', () => {
  it('uses a singleton store’s location as it is, <location>/<id> for one of many, <storage dir>/<id> without one', () => {
    expect(filesystemMountPoint('/var/lib/juju/storage', { location: '/srv/data', singleton: true }, 'data/0')).toBe('/srv/data');
    expect(filesystemMountPoint('/var/lib/juju/storage', { location: '/srv/data', singleton: false }, 'data/3')).toBe('/srv/data/data/3');
    expect(filesystemMountPoint('/var/lib/juju/storage', single, 'data/0')).toBe('/var/lib/juju/storage/data/0');
  });

  it('refuses a location within the storage directory', () => {
    expect(() => filesystemMountPoint('/var/lib/juju/storage', { location: '/var/lib/juju/storage/x', singleton: true }, 'data/0')).toThrow(
      'invalid location "/var/lib/juju/storage/x": must not fall within "/var/lib/juju/storage"',
    );
  });

  it('reads location and multiplicity from the charm’s storage declaration', () => {
    const app = (storage: unknown) => application('wordpress', { charm: { ...application('wordpress').charm, storage } as never });
    expect(charmStorageMeta(app({ data: { type: 'filesystem', location: '/srv' } }), 'data')).toEqual({
      location: '/srv',
      singleton: true,
    });
    expect(charmStorageMeta(app({ data: { type: 'filesystem', multiple: { range: '0-1' } } }), 'data')).toEqual({ singleton: true });
    expect(charmStorageMeta(app({ data: { type: 'filesystem', multiple: { range: '1-3' } } }), 'data')).toEqual({ singleton: false });
    expect(charmStorageMeta(app({ data: { type: 'filesystem', multiple: { range: '2+' } } }), 'data')).toEqual({ singleton: false });
    expect(charmStorageMeta(app({ data: { type: 'filesystem', multiple: { range: 2 } } }), 'data')).toEqual({ singleton: false });
    expect(charmStorageMeta(application('wordpress'), 'data')).toEqual({ singleton: true });
  });
});

describe('rootfs storage', () => {
  it('locally: a 0755 directory under the machine’s storage directory, the charm’s location not used', async () => {
    const machine = new FakeMachine();
    const local = new MachineStorage({ dir: '/m/0/storage', provider: 'local' }, machine);
    expect(await local.prepare(storage('data/0'), { location: '/srv/data', singleton: true })).toBe('/m/0/storage/data/0');
    expect(machine.dirs).toEqual([['/m/0/storage/data/0', 0o755]]);
    expect(machine.commands).toEqual([]);
  });

  it('on EC2: Juju’s storage directory, bind-mounted at the charm’s location, once however often asked', async () => {
    const machine = new FakeMachine();
    expect(await ec2(machine).prepare(storage('data/0'), single)).toBe('/var/lib/juju/storage/data/0');
    expect(machine.commands).toEqual([]);
    const meta = { location: '/srv/data', singleton: true };
    expect(await ec2(machine).prepare(storage('logs/1'), meta)).toBe('/srv/data');
    expect(await ec2(machine).prepare(storage('logs/1'), meta)).toBe('/srv/data');
    expect(machine.mounts.get('/srv/data')).toBe('/var/lib/juju/storage/logs/1');
    expect(machine.commands.filter((c) => c.startsWith('mount'))).toEqual(['mount --bind /var/lib/juju/storage/logs/1 /srv/data']);
    await ec2(machine).release(storage('logs/1', { location: '/srv/data' }));
    expect(machine.mounts.has('/srv/data')).toBe(false);
  });

  it('refuses an id that is not Juju’s <name>/<n>, which would lead its directory elsewhere', async () => {
    const machine = new FakeMachine();
    await expect(ec2(machine).prepare(storage('../../etc/0'), single)).rejects.toThrow('invalid storage ID "../../etc/0"');
    expect(machine.dirs).toEqual([]);
  });

  it('refuses block storage it cannot provide', async () => {
    await expect(ec2(new FakeMachine()).prepare(storage('disk/0', { kind: 'block' }), single)).rejects.toThrow(
      'block storage from pool "rootfs" is not supported on this machine',
    );
  });
});

describe('EBS volumes on EC2', () => {
  const volumeId = 'vol-0123456789abcdef0';
  const ebs = (id: string, fields: Partial<UnitStorage> = {}) =>
    storage(id, { pool: 'ebs', volume: { volumeId, device: '/dev/sdf' }, ...fields });

  it('finds the NVMe device by volume id, formats it ext4 once, mounts it at its location', async () => {
    const machine = new FakeMachine();
    const link = nvmeLinkOf(volumeId);
    expect(link).toBe('/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0');
    machine.paths.add(link);
    expect(await ec2(machine).prepare(ebs('data/0'), single)).toBe('/var/lib/juju/storage/data/0');
    expect(machine.mounts.get('/var/lib/juju/storage/data/0')).toBe(link);
    // Again (an agent restarted before it reported): no second mkfs, no second mount.
    machine.mounts.clear();
    await ec2(machine).prepare(ebs('data/0'), single);
    expect(machine.commands.filter((c) => c.startsWith('mkfs'))).toEqual([`mkfs.ext4 -q ${link}`]);
    expect(machine.commands.filter((c) => c.startsWith('mount'))).toHaveLength(2);
    await ec2(machine).prepare(ebs('data/0'), single);
    expect(machine.commands.filter((c) => c.startsWith('mount'))).toHaveLength(2);
  });

  it('on a Xen instance, the device it was attached as (/dev/sdf shows as /dev/xvdf)', async () => {
    const machine = new FakeMachine();
    machine.paths.add('/dev/xvdf');
    expect(await ec2(machine).prepare(ebs('data/0'), { location: '/srv/pg', singleton: true })).toBe('/srv/pg');
    expect(machine.mounts.get('/srv/pg')).toBe('/dev/xvdf');
  });

  it('block storage’s location is the device itself, never formatted', async () => {
    const machine = new FakeMachine();
    machine.paths.add(nvmeLinkOf(volumeId));
    expect(await ec2(machine).prepare(ebs('disk/0', { kind: 'block' }), single)).toBe(nvmeLinkOf(volumeId));
    expect(machine.commands).toEqual([]);
  });

  it('a volume not on the machine yet is not ready: try again later', async () => {
    await expect(ec2(new FakeMachine()).prepare(ebs('data/0'), single)).rejects.toBeInstanceOf(StorageNotReady);
  });

  it('released: unmounted, so that the volume can be detached; nothing mounted, nothing done', async () => {
    const machine = new FakeMachine();
    machine.mounts.set('/var/lib/juju/storage/data/0', nvmeLinkOf(volumeId));
    await ec2(machine).release(ebs('data/0', { location: '/var/lib/juju/storage/data/0' }));
    await ec2(machine).release(ebs('data/0', { location: '/var/lib/juju/storage/data/0' }));
    expect(machine.commands.filter((c) => c.startsWith('umount'))).toEqual(['umount /var/lib/juju/storage/data/0']);
  });
});
