// What `storage` shows: Juju's status words for an instance, and its sizes in humanize.IBytes' words.
import { describe, expect, it } from 'vitest';
import { humanizeIBytes, storageDocument, storageRows, storageStatus } from '#shared/domain/storage-views.js';
import type { StorageAttachment, StorageInstance } from '#shared/domain/storage.js';

const instance = (fields: Partial<StorageInstance> = {}): StorageInstance => ({
  id: 'data/0',
  name: 'data',
  kind: 'filesystem',
  pool: 'rootfs',
  size: 1024,
  owner: 'unit-app-0',
  life: 'alive',
  persistent: false,
  attachments: ['app/0'],
  createdAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});
const attached = (fields: Partial<StorageAttachment> = {}): StorageAttachment => ({
  storage: 'data/0',
  unit: 'app/0',
  machine: '0',
  life: 'alive',
  ...fields,
});

describe('storage status', () => {
  it.each([
    ['pending until its agent reports it attached', instance(), [attached()], 'pending'],
    ['attached once it did', instance(), [attached({ location: '/srv/data' })], 'attached'],
    ['detaching while its attachment is Dying', instance(), [attached({ life: 'dying' })], 'detaching'],
    ['detached with no attachment', instance({ attachments: [] }), [], 'detached'],
    ['destroying once Dying and unattached', instance({ life: 'dying', attachments: [] }), [], 'destroying'],
  ])('%s', (_what, storage, attachments, current) => {
    expect(storageStatus(storage, attachments).current).toBe(current);
  });

  it('sizes read as Juju prints them', () => {
    expect(humanizeIBytes(100)).toBe('100 MiB');
    expect(humanizeIBytes(1024)).toBe('1.0 GiB');
    expect(humanizeIBytes(10 * 1024 * 1024)).toBe('10 TiB');
  });

  it('rows by unit, then by storage number; unattached storage last', () => {
    const rows = storageRows([
      { instance: instance({ id: 'data/10' }), attachments: [attached({ storage: 'data/10' })] },
      { instance: instance({ id: 'data/2', attachments: [] }), attachments: [] },
      { instance: instance({ id: 'data/9' }), attachments: [attached({ storage: 'data/9' })] },
    ]);
    expect(rows.map((r) => [r[0], r[1]])).toEqual([
      ['app/0', 'data/9'],
      ['app/0', 'data/10'],
      ['', 'data/2'],
    ]);
  });

  it("the document has Juju's keys: storage, and filesystems or volumes as the storage is", () => {
    const doc = storageDocument([
      { instance: instance(), attachments: [attached({ location: '/srv/data' })] },
      {
        instance: instance({ id: 'disks/1', kind: 'block', pool: 'ebs', persistent: true }),
        attachments: [attached({ storage: 'disks/1' })],
      },
    ]);
    expect(Object.keys(doc)).toEqual(['storage', 'filesystems', 'volumes']);
    expect(doc.storage['data/0']).toMatchObject({
      kind: 'filesystem',
      persistent: false,
      attachments: { units: { 'app/0': { location: '/srv/data' } } },
    });
    expect(doc.volumes?.['1']).toMatchObject({ storage: 'disks/1', pool: 'ebs', persistent: true, provider: 'ebs' });
  });
});
