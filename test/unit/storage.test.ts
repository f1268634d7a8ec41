// Juju's storage directive syntax and rules (storage/constraints.go, state/storage.go), as tables.
import { describe, expect, it } from 'vitest';
import { parseCharm } from '#shared/domain/charm.js';
import {
  addStorageDirective,
  humanizeMiB,
  parseSizeMiB,
  parseStorageConstraints,
  parseStorageFlag,
  parseStorageFlags,
  storageDirectives,
  storageIdOf,
  storagePools,
  storageTag,
} from '#shared/domain/storage.js';
import { charms } from '../support/charms.js';

describe('storage constraints, as Juju parses them', () => {
  it.each([
    ['rootfs', { pool: 'rootfs', count: 1 }],
    ['2G', { size: 2048, count: 1 }],
    ['rootfs,1G,2', { pool: 'rootfs', size: 1024, count: 2 }],
    ['3,p,0.125P', { pool: 'p', size: 1024 * 1024 * 128, count: 3 }],
    ['p,1,0.5T', { pool: 'p', size: 1024 * 512, count: 1 }],
    ['p,1M,', { pool: 'p', size: 1, count: 1 }],
    ['5', { count: 5 }],
    ['1.5GiB', { size: 1536, count: 1 }],
  ])('%s', (text, expected) => {
    expect(parseStorageConstraints(text)).toEqual(expected);
  });

  it.each([
    ['', 'storage constraints require at least one field to be specified'],
    [',', 'storage constraints require at least one field to be specified'],
    ['p,0,100M', 'cannot parse count: count must be greater than zero, got "0"'],
    ['p,-1,100M', 'cannot parse count: count must be greater than zero, got "-1"'],
    ['p,-100M', 'cannot parse size: expected a non-negative number, got "-100M"'],
    ['pool1,pool2', 'pool name is already set to "pool1", new value "pool2" not valid'],
    ['p,$1234', 'unrecognized storage constraint "$1234" not valid'],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseStorageConstraints(text)).toThrow(message);
  });

  it('reads deploy --storage as <store>=<constraints>, with Juju errors', () => {
    expect(parseStorageFlag('data=rootfs,1G')).toEqual(['data', 'rootfs,1G']);
    expect(() => parseStorageFlag('data')).toThrow('expected <store>=<constraints>');
    expect(() => parseStorageFlag('app:data=1G')).toThrow('expected <store>=<constraints>');
    expect(() => parseStorageFlags({ data: '' })).toThrow(
      'cannot parse disk constraints: storage constraints require at least one field to be specified',
    );
  });

  it('reads sizes as utils.ParseSize does: MiB, rounded up, M when no suffix', () => {
    expect(parseSizeMiB('100')).toBe(100);
    expect(parseSizeMiB('1G')).toBe(1024);
    expect(parseSizeMiB('0.3M')).toBe(1);
    expect(parseSizeMiB('1X')).toBe('invalid multiplier suffix "X", expected one of MGTPEZY');
  });

  it("shows sizes in humanize.Bytes' words, as Juju's errors do", () => {
    expect(humanizeMiB(100)).toBe('100 MB');
    expect(humanizeMiB(1024)).toBe('1.0 GB');
    expect(humanizeMiB(10240)).toBe('10 GB');
  });

  it('names storage as Juju does: data/0, storage-data-0', () => {
    expect(storageTag('data/0')).toBe('storage-data-0');
    expect(storageIdOf('storage-my-data-12')).toBe('my-data/12');
    expect(storageIdOf('data-0')).toBe('data/0');
    expect(storageIdOf('data/3')).toBe('data/3');
    expect(storageIdOf('data')).toBeUndefined();
  });
});

describe("a charm's stores", () => {
  it('keeps type, location, range, read-only and minimum size', () => {
    const meta = parseCharm(
      'name: a\nstorage:\n  data: {type: filesystem, location: /srv, multiple: {range: 2+}, read-only: true, minimum-size: 1G}\n',
    );
    expect(meta.storage).toEqual({
      data: { type: 'filesystem', location: '/srv', countMin: 2, countMax: -1, shared: false, readOnly: true, minimumSize: 1024 },
    });
    expect(parseCharm('name: a\n').storage).toBeUndefined();
  });

  it('refuses a minimum-size that is not a size', () => {
    expect(() => parseCharm('name: a\nstorage:\n  data: {type: filesystem, minimum-size: lots}\n')).toThrow(
      'metadata.yaml: storage.data.minimum-size: expected a non-negative number, got "lots"',
    );
  });
});

describe('application storage directives', () => {
  it('fill in what the user left out: count the minimum, size minimum-size or 1 GiB, pool rootfs', () => {
    expect(storageDirectives(charms.storage, {}, 'local')).toEqual({
      data: { pool: 'rootfs', size: 100, count: 1 },
      disks: { pool: '', size: 1024, count: 0 },
    });
    expect(storageDirectives(charms.storage, { data: parseStorageConstraints('rootfs,1G,2') }, 'local').data).toEqual({
      pool: 'rootfs',
      size: 1024,
      count: 2,
    });
    expect(storageDirectives(charms.storage, { disks: { count: 1 } }, 'ec2').disks).toEqual({ pool: 'ebs', size: 1024, count: 1 });
  });

  it.each([
    ['an unknown store', { logs: { count: 1 } }, 'local', 'charm "storage" has no store called "logs"'],
    ['too many', { data: { count: 4 } }, 'local', 'charm "storage" store "data": at most 3 instances supported, 4 specified'],
    [
      'below minimum-size',
      { data: { size: 10, count: 1 } },
      'local',
      'charm "storage" store "data": minimum storage size is 100 MB, 10 MB specified',
    ],
    ['an unknown pool', { data: { pool: 'ceph', count: 1 } }, 'local', 'pool "ceph" not found'],
    ['ebs on the local provider', { data: { pool: 'ebs', count: 1 } }, 'local', 'pool "ebs" not found'],
    ['block on rootfs', { disks: { pool: 'rootfs', count: 1 } }, 'ec2', '"rootfs" provider does not support "block" storage'],
    ['block on the local provider', { disks: { count: 1 } }, 'local', 'block storage is not supported on the local provider'],
  ] as const)('refuse %s', (_what, requested, provider, message) => {
    expect(() => storageDirectives(charms.storage, requested, provider)).toThrow(message);
  });

  it('refuse a singular store asked for twice, and shared storage', () => {
    const single = parseCharm('name: one\nstorage:\n  data: {type: filesystem}\n');
    expect(() => storageDirectives(single, { data: { count: 2 } }, 'local')).toThrow(
      'charm "one" store "data": storage is singular, 2 specified',
    );
    const shared = parseCharm('name: sh\nstorage:\n  data: {type: filesystem, shared: true}\n');
    expect(() => storageDirectives(shared, { data: { count: 1 } }, 'local')).toThrow(
      'charm "sh" store "data": shared storage support not implemented',
    );
  });

  it('add-storage checks the total against the maximum, in Juju words', () => {
    const directive = { pool: 'rootfs', size: 100, count: 1 };
    expect(addStorageDirective(charms.storage, 'data', { count: 2 }, 1, directive, 'local')).toEqual({
      pool: 'rootfs',
      size: 100,
      count: 2,
    });
    expect(() => addStorageDirective(charms.storage, 'data', { count: 2 }, 2, directive, 'local')).toThrow(
      'adding "data" storage to unit: attaching 2 storage instances brings the total to 4, exceeding the maximum of 3',
    );
    expect(() => addStorageDirective(charms.storage, 'logs', { count: 1 }, 0, undefined, 'local')).toThrow(
      'charm storage "logs" not found',
    );
  });

  it('pools: rootfs everywhere, ebs on AWS', () => {
    expect(storagePools('local').map((p) => p.name)).toEqual(['rootfs']);
    expect(storagePools('ec2').map((p) => [p.name, p.provider])).toEqual([
      ['ebs', 'ebs'],
      ['rootfs', 'rootfs'],
    ]);
  });
});
