import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { VolumeInfo, Volumes } from '#shared/provider/provider.js';
import { decideVolumes, reapVolumes, type StorageClaim } from '#shared/provisioner/reap-volumes.js';

const LISTED_AT = 10_000_000;
const GRACE = 600_000;
const OLD = LISTED_AT - GRACE - 1;

const volume = (overrides: Partial<VolumeInfo> = {}): VolumeInfo => ({
  volumeId: 'vol-1',
  state: 'available',
  model: 'default',
  storageId: 'data/0',
  sizeGiB: 1,
  attachments: [],
  createdAt: OLD,
  ...overrides,
});
const claim = (overrides: Partial<StorageClaim> = {}): StorageClaim => ({
  model: 'default',
  storageId: 'data/0',
  life: 'alive',
  ...overrides,
});
const inUse = { state: 'in-use', attachments: [{ instanceId: 'i-1', state: 'attached', device: '/dev/sdf' }] };

describe('the volume reaper’s decisions', () => {
  it.each<[string, Partial<VolumeInfo>, StorageClaim[], 'delete' | 'keep', string]>([
    ['no storage instance at all', {}, [], 'delete', 'no storage instance names it'],
    [
      'its storage instance is gone, another lives',
      {},
      [claim({ storageId: 'data/1', volumeId: 'vol-2' })],
      'delete',
      'no storage instance names it',
    ],
    ['its storage instance is Dead', {}, [claim({ life: 'dead', volumeId: 'vol-1' })], 'delete', 'storage data/0 is dead'],
    ['its storage instance is Dead, naming none', {}, [claim({ life: 'dead' })], 'delete', 'no storage instance names it'],
    ['named by Alive storage', {}, [claim({ volumeId: 'vol-1' })], 'keep', 'storage data/0 is alive'],
    [
      'named by Dead storage that released it (--no-destroy)',
      {},
      [claim({ life: 'dead', volumeId: 'vol-1', released: true })],
      'keep',
      'storage data/0 released it',
    ],
    ['named by Dying storage', {}, [claim({ life: 'dying', volumeId: 'vol-1' })], 'keep', 'storage data/0 is dying'],
    ['made for Alive storage that names no volume yet', {}, [claim()], 'keep', 'made for storage data/0, which is alive'],
    ['made for Alive storage that names another', {}, [claim({ volumeId: 'vol-9' })], 'keep', 'made for storage data/0, which is alive'],
    ['same storage id, another model', { model: 'm2' }, [claim()], 'delete', 'no storage instance names it'],
    ['attached, its storage Dead', inUse, [claim({ life: 'dead', volumeId: 'vol-1' })], 'keep', 'attached to an instance'],
    ['attached, no storage', inUse, [], 'keep', 'attached to an instance'],
    ['an attachment still detaching', { attachments: [{ instanceId: 'i-1', state: 'detaching' }] }, [], 'keep', 'attached to an instance'],
    ['still being made', { state: 'creating' }, [], 'keep', 'creating'],
    ['being deleted', { state: 'deleting' }, [], 'keep', 'deleting'],
    ['made within the grace', { createdAt: LISTED_AT - GRACE + 1 }, [], 'keep', 'made moments ago'],
    ['no creation time', { createdAt: undefined as unknown as number }, [], 'keep', 'made moments ago'],
    ['in error, old, unclaimed', { state: 'error' }, [], 'delete', 'no storage instance names it'],
  ])('%s: %s', (_, overrides, claims, decision, why) => {
    const v = volume(overrides);
    if ('createdAt' in overrides && overrides.createdAt === undefined) delete v.createdAt;
    expect(decideVolumes([v], claims, LISTED_AT, GRACE)).toEqual([{ volumeId: 'vol-1', decision, why }]);
  });

  it('never deletes a volume that is attached or whose storage lives, whatever else holds', () => {
    const life = fc.constantFrom('alive' as const, 'dying' as const, 'dead' as const);
    fc.assert(
      fc.property(
        fc.constantFrom('available', 'in-use', 'creating', 'error'),
        fc.boolean(),
        fc.array(fc.record({ storageId: fc.constantFrom('data/0', 'data/1'), life, named: fc.boolean() }), { maxLength: 3 }),
        fc.integer({ min: 0, max: LISTED_AT }),
        (state, hasAttachment, claims, createdAt) => {
          const v = volume({ state, createdAt, attachments: hasAttachment ? [{ instanceId: 'i-1', state: 'attached' }] : [] });
          const storage = claims.map((c) => claim({ storageId: c.storageId, life: c.life, ...(c.named ? { volumeId: 'vol-1' } : {}) }));
          const [verdict] = decideVolumes([v], storage, LISTED_AT, GRACE);
          const lives = storage.some((c) => c.life !== 'dead' && (c.volumeId === 'vol-1' || c.storageId === 'data/0'));
          if (state === 'in-use' || hasAttachment || lives || createdAt > LISTED_AT - GRACE) expect(verdict!.decision).toBe('keep');
        },
      ),
    );
  });
});

describe('the volume reaper', () => {
  const volumesOf = (listed: VolumeInfo[], failing = new Set<string>()) => {
    const deleted: string[] = [];
    const order: string[] = [];
    const volumes = {
      listVolumes: async () => {
        order.push('list');
        return listed;
      },
      deleteVolume: async (id: string) => {
        if (failing.has(id)) throw new Error(`cannot delete volume ${id}: denied`);
        deleted.push(id);
      },
    } as unknown as Volumes;
    return { volumes, deleted, order };
  };

  it('lists the volumes before it reads state, and deletes only the orphans', async () => {
    const fake = volumesOf([volume({ volumeId: 'vol-orphan', storageId: 'gone/0' }), volume({ volumeId: 'vol-kept' })]);
    const result = await reapVolumes({
      volumes: fake.volumes,
      controllerId: 'ctl-1',
      readClaims: async () => {
        fake.order.push('read state');
        return [claim({ volumeId: 'vol-kept' })];
      },
      now: () => LISTED_AT,
      graceMs: GRACE,
    });
    expect(fake.order).toEqual(['list', 'read state']);
    expect(result).toEqual({ deleted: ['vol-orphan'], failures: [] });
    expect(fake.deleted).toEqual(['vol-orphan']);
  });

  it('reports what it could not delete or read, and goes on with the rest', async () => {
    const fake = volumesOf(
      [volume({ volumeId: 'vol-a', storageId: 'a/0' }), volume({ volumeId: 'vol-b', storageId: 'b/0' })],
      new Set(['vol-a']),
    );
    const input = { volumes: fake.volumes, controllerId: 'ctl-1', now: () => LISTED_AT, graceMs: GRACE };
    expect(await reapVolumes({ ...input, readClaims: async () => [] })).toEqual({
      deleted: ['vol-b'],
      failures: [{ volumeId: 'vol-a', error: 'cannot delete volume vol-a: denied' }],
    });
    const unread = await reapVolumes({
      ...input,
      readClaims: async () => {
        throw new Error('throttled');
      },
    });
    expect(unread).toEqual({ deleted: [], failures: [{ error: 'cannot reap volumes: throttled' }] });
  });
});
