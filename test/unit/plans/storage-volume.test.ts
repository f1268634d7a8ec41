import { describe, expect, it } from 'vitest';
import { planRecordVolume, planRemoveDeadStorage } from '#shared/domain/plans/storage-volume.js';
import type { StorageInstance } from '#shared/domain/storage.js';

const instance = (overrides: Partial<StorageInstance> = {}): StorageInstance => ({
  id: 'data/0',
  name: 'data',
  kind: 'filesystem',
  pool: 'ebs',
  size: 1024,
  owner: 'unit-storage-0',
  life: 'alive',
  persistent: true,
  attachments: ['storage/0'],
  createdAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});
const attached = { volumeId: 'vol-1', device: '/dev/sdf', attachedTo: 'i-0abc' };

describe('recording a volume', () => {
  it('asserts the instance as the step read it: its life, its volume (absent) and its attachments', () => {
    const seen = instance();
    expect(planRecordVolume(seen, seen, attached)).toEqual({
      changes: [
        {
          op: 'update',
          ref: { kind: 'storage', id: 'data/0' },
          set: { volume: attached },
          expect: { life: 'alive', absent: ['volume'], setSize: { attachments: 1 }, contains: { attachments: ['storage/0'] } },
        },
      ],
      result: 'recorded',
    });
  });

  it('asserts each field of a recorded volume, present or absent', () => {
    const seen = instance({ volume: { volumeId: 'vol-1' }, attachments: [] });
    expect(planRecordVolume(seen, seen, attached).changes[0]).toMatchObject({
      expect: {
        life: 'alive',
        equals: { 'volume.volumeId': 'vol-1' },
        absent: ['volume.device', 'volume.attachedTo'],
        setSize: { attachments: 0 },
      },
    });
  });

  it('is done when the volume is recorded already, and stale when the instance changed since it was read', () => {
    const seen = instance();
    expect(planRecordVolume(instance({ volume: attached }), seen, attached)).toEqual({ changes: [], result: 'recorded' });
    expect(planRecordVolume(instance({ attachments: [] }), seen, attached)).toEqual({ changes: [], result: 'stale' });
    expect(planRecordVolume(instance({ life: 'dying' }), seen, attached)).toEqual({ changes: [], result: 'stale' });
    expect(planRecordVolume(undefined, seen, attached)).toEqual({ changes: [], result: 'stale' });
  });
});

describe('removing Dead storage once its volume is deleted', () => {
  const dead = instance({ life: 'dead', attachments: [], volume: { volumeId: 'vol-1' } });

  it('removes it as read; gone already is done; changed since, or not Dead, is stale', () => {
    expect(planRemoveDeadStorage(dead, dead).changes).toEqual([
      {
        op: 'remove',
        ref: { kind: 'storage', id: 'data/0' },
        expect: {
          life: 'dead',
          equals: { 'volume.volumeId': 'vol-1' },
          absent: ['volume.device', 'volume.attachedTo'],
          setSize: { attachments: 0 },
        },
      },
    ]);
    expect(planRemoveDeadStorage(undefined, dead)).toEqual({ changes: [], result: 'removed' });
    expect(planRemoveDeadStorage({ ...dead, volume: { volumeId: 'vol-2' } }, dead)).toEqual({ changes: [], result: 'stale' });
    expect(planRemoveDeadStorage(instance(), instance()).result).toBe('stale');
  });
});
