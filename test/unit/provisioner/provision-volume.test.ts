import { describe, expect, it } from 'vitest';
import { ProviderError, type VolumeInfo, type VolumeRequest, type Volumes } from '#shared/provider/provider.js';
import { provisionVolume, type VolumeStorage } from '#shared/provisioner/provision-volume.js';

/** Volumes that record what they were asked, and fail where told to. */
function fakeVolumes(fail: Partial<Record<keyof Volumes, ProviderError>> = {}) {
  const calls: string[] = [];
  const requests: VolumeRequest[] = [];
  const act = (name: keyof Volumes, call: string) => {
    calls.push(call);
    if (fail[name]) throw fail[name];
  };
  const volumes: Volumes = {
    async ensureVolume(request) {
      requests.push(request);
      act('ensureVolume', `ensure ${request.storageId}`);
      return {
        volumeId: 'vol-new',
        state: 'creating',
        model: request.model,
        storageId: request.storageId,
        sizeGiB: 1,
        attachments: [],
      } as VolumeInfo;
    },
    async attachVolume(volumeId, instanceId) {
      act('attachVolume', `attach ${volumeId} ${instanceId}`);
      return { device: '/dev/sdf' };
    },
    async detachVolume(volumeId, instanceId) {
      act('detachVolume', `detach ${volumeId} ${instanceId}`);
    },
    async deleteVolume(volumeId) {
      act('deleteVolume', `delete ${volumeId}`);
    },
    async listVolumes() {
      return [];
    },
  };
  return { volumes, calls, requests };
}

const storage = (overrides: Partial<VolumeStorage> = {}): VolumeStorage => ({
  id: 'data/0',
  model: 'default',
  size: 2048,
  life: 'alive',
  poolAttributes: { 'volume-type': 'gp2' },
  ...overrides,
});
const step = (volumes: Volumes, s: VolumeStorage, instanceId?: string) =>
  provisionVolume(volumes, { controllerId: 'ctl-1', storage: s, ...(instanceId ? { instanceId } : {}) });

describe('the provisioner’s volume step', () => {
  it('makes and attaches the volume of new storage on its unit’s instance, and says what to record', async () => {
    const fake = fakeVolumes();
    expect(await step(fake.volumes, storage({ attempt: 2 }), 'i-1')).toEqual({
      kind: 'record',
      volume: { volumeId: 'vol-new', device: '/dev/sdf', attachedTo: 'i-1' },
    });
    expect(fake.calls).toEqual(['ensure data/0', 'attach vol-new i-1']);
    expect(fake.requests).toEqual([
      {
        controllerId: 'ctl-1',
        model: 'default',
        storageId: 'data/0',
        attempt: 2,
        sizeMiB: 2048,
        poolAttributes: { 'volume-type': 'gp2' },
        instanceId: 'i-1',
      },
    ]);
  });

  it('does nothing for a volume recorded attached where it should be', async () => {
    const fake = fakeVolumes();
    const recorded = { volumeId: 'vol-1', device: '/dev/sdf', attachedTo: 'i-1' };
    expect(await step(fake.volumes, storage({ volume: recorded }), 'i-1')).toEqual({ kind: 'unchanged' });
    expect(await step(fake.volumes, storage({ volume: recorded, life: 'dying' }), 'i-1')).toEqual({ kind: 'unchanged' });
    expect(fake.calls).toEqual([]);
  });

  it('attaches a recorded volume that is not attached (a detached storage attached again), making none', async () => {
    const fake = fakeVolumes();
    expect(await step(fake.volumes, storage({ volume: { volumeId: 'vol-1' } }), 'i-2')).toEqual({
      kind: 'record',
      volume: { volumeId: 'vol-1', device: '/dev/sdf', attachedTo: 'i-2' },
    });
    expect(fake.calls).toEqual(['attach vol-1 i-2']);
  });

  it('moves a volume recorded on another instance: detached there first', async () => {
    const fake = fakeVolumes();
    await step(fake.volumes, storage({ volume: { volumeId: 'vol-1', device: '/dev/sdf', attachedTo: 'i-old' } }), 'i-2');
    expect(fake.calls).toEqual(['detach vol-1 i-old', 'attach vol-1 i-2']);
  });

  it('detaches, and keeps, the volume of storage with no unit on an instance', async () => {
    const fake = fakeVolumes();
    expect(await step(fake.volumes, storage({ volume: { volumeId: 'vol-1', device: '/dev/sdf', attachedTo: 'i-1' } }))).toEqual({
      kind: 'record',
      volume: { volumeId: 'vol-1' },
    });
    expect(await step(fake.volumes, storage({ volume: { volumeId: 'vol-1' } }))).toEqual({ kind: 'unchanged' });
    expect(await step(fake.volumes, storage())).toEqual({ kind: 'unchanged' });
    expect(fake.calls).toEqual(['detach vol-1 i-1']);
  });

  it('detaches and deletes the volume of Dead storage; Dead storage with none is done', async () => {
    const fake = fakeVolumes();
    expect(await step(fake.volumes, storage({ life: 'dead', volume: { volumeId: 'vol-1', attachedTo: 'i-1' } }), 'i-1')).toEqual({
      kind: 'deleted',
    });
    expect(await step(fake.volumes, storage({ life: 'dead', volume: { volumeId: 'vol-2' } }))).toEqual({ kind: 'deleted' });
    expect(await step(fake.volumes, storage({ life: 'dead' }), 'i-1')).toEqual({ kind: 'deleted' });
    expect(fake.calls).toEqual(['detach vol-1 i-1', 'delete vol-1', 'delete vol-2']);
  });

  it('reports a refusal, with the volume made before it so that it is recorded all the same', async () => {
    const refused = new ProviderError('timed out waiting for volume vol-new to attach to i-1', true);
    const fake = fakeVolumes({ attachVolume: refused });
    expect(await step(fake.volumes, storage(), 'i-1')).toEqual({ kind: 'error', error: refused, volume: { volumeId: 'vol-new' } });
    const none = fakeVolumes({ ensureVolume: new ProviderError('volume size is 3 GiB, must be at least 4 GiB', false) });
    const outcome = await step(none.volumes, storage(), 'i-1');
    expect(outcome).toMatchObject({ kind: 'error', error: { transient: false } });
    expect(outcome).not.toHaveProperty('volume');
  });

  it('takes a failure that is no ProviderError as transient, naming nothing it did not change', async () => {
    const fake = fakeVolumes({ deleteVolume: new Error('socket hang up') as ProviderError });
    const outcome = await step(fake.volumes, storage({ life: 'dead', volume: { volumeId: 'vol-1' } }));
    expect(outcome).toMatchObject({ kind: 'error', error: { message: 'socket hang up', transient: true } });
    expect(outcome).not.toHaveProperty('volume');
  });
});
