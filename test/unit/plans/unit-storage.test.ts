// The storage plans as tables: what becomes of an instance once detached, and the Dying unit's attachments.
import { describe, expect, it } from 'vitest';
import { dyingStorage, planStorageAttached, planStorageDetached, releaseInstance } from '#shared/domain/plans/unit-storage.js';
import type { StorageAttachment, StorageInstance } from '#shared/domain/storage.js';
import { unitBlockedBy } from '#shared/domain/blocked-by.js';
import { unit } from './destruction-fixtures.js';

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
const attachment = (life: StorageAttachment['life']): StorageAttachment => ({ storage: 'data/0', unit: 'app/0', life, machine: '0' });
const expectAttached = { life: 'alive', contains: { attachments: 'app/0' }, setSize: { attachments: 1 } };

describe('releaseInstance: an instance once its last attachment is gone', () => {
  it.each([
    [
      'rootfs (not persistent) is removed',
      instance(),
      false,
      { op: 'remove', ref: { kind: 'storage', id: 'data/0' }, expect: expectAttached },
    ],
    [
      'a persistent one is kept, detached',
      instance({ pool: 'ebs', persistent: true }),
      false,
      { op: 'update', ref: { kind: 'storage', id: 'data/0' }, removeFromSet: { attachments: ['app/0'] }, expect: expectAttached },
    ],
    [
      'a persistent one destroyed with its unit goes Dead, for the provisioner to delete its volume',
      instance({ pool: 'ebs', persistent: true }),
      true,
      {
        op: 'update',
        ref: { kind: 'storage', id: 'data/0' },
        set: { life: 'dead' },
        removeFromSet: { attachments: ['app/0'] },
        expect: expectAttached,
      },
    ],
  ] as const)('%s', (_what, storage, destroy, change) => {
    expect(releaseInstance(storage, 'app/0', destroy)).toEqual(change);
  });
});

describe('the agent detaching and attaching', () => {
  it('storage-detached removes the Dying attachment and lets the unit go of it, once', () => {
    const plan = planStorageDetached(
      {
        unit: unit('app/0', { life: 'dying', storageAttachments: ['data/0'] }),
        attachment: attachment('dying'),
        instance: instance(),
        destroyStorage: false,
      },
      { unit: 'app/0', storage: 'data/0' },
    );
    expect(plan.result).toBe('detached');
    expect(plan.changes.map((c) => [c.op, c.ref.kind])).toEqual([
      ['remove', 'storageAttachment'],
      ['update', 'unit'],
      ['remove', 'storage'],
    ]);
    expect(planStorageDetached({ destroyStorage: false }, { unit: 'app/0', storage: 'data/0' })).toEqual({
      changes: [],
      result: 'already-detached',
    });
  });

  it('storage-attached records a new location, and nothing for the same one', () => {
    const intent = { unit: 'app/0', storage: 'data/0', location: '/srv/data' };
    expect(planStorageAttached({ attachment: attachment('alive') }, intent).changes).toHaveLength(1);
    expect(planStorageAttached({ attachment: { ...attachment('alive'), location: '/srv/data' } }, intent)).toEqual({
      changes: [],
      result: 'already-attached',
    });
    expect(() => planStorageAttached({}, intent)).toThrow('storage data/0 is not attached to unit app/0');
  });

  it('a Dying unit makes its Alive attachments Dying, and with --destroy-storage its instances', () => {
    expect(dyingStorage([attachment('alive'), { ...attachment('dying'), storage: 'data/1' }], [instance()], false)).toEqual([
      {
        op: 'update',
        ref: { kind: 'storageAttachment', storage: 'data/0', unit: 'app/0' },
        set: { life: 'dying' },
        expect: { life: 'alive' },
      },
    ]);
    expect(dyingStorage([], [instance()], true)).toEqual([
      { op: 'update', ref: { kind: 'storage', id: 'data/0' }, set: { life: 'dying' }, expect: { life: 'alive' } },
    ]);
  });
});

describe('what holds a Dying unit', () => {
  it('names its attached storage, which its agent must detach first', () => {
    expect(unitBlockedBy(unit('app/0', { life: 'dying', storageAttachments: ['data/0'] }))).toEqual(['storage data/0 attached']);
  });
});
