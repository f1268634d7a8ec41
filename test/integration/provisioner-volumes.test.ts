// The full reconcile's volume step on DynamoDB Local, against an EC2 faked with aws-sdk-client-mock:
// `ebs` storage on a machine with an instance gets a volume made, attached and recorded; Dead
// storage has its volume deleted and its item removed; runs repeated or at once make one volume.
import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AttachVolumeCommand,
  CreateVolumeCommand,
  DeleteVolumeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  DetachVolumeCommand,
  EC2Client,
  type Volume,
} from '@aws-sdk/client-ec2';
import { refs } from '#shared/domain/plan.js';
import type { StorageInstance } from '#shared/domain/storage.js';
import { Ec2Volumes } from '#shared/provider/ec2/volumes.js';
import type { InstanceInfo, Provider } from '#shared/provider/provider.js';
import type { MachineQueues } from '#shared/provisioner/deps.js';
import { reconcileAll } from '#shared/provisioner/reconcile-all.js';
import { readStorageClaims } from '#shared/provisioner/storage-claims.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import { recordStorageVolume } from '#shared/state/operations/storage-volume.js';
import { removeStorage, storageDetached } from '#shared/state/operations/unit-storage.js';
import { getItem } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { provisionerDeps } from '../support/provisioner.js';
import { freshStore } from '../support/table.js';

const ec2 = mockClient(EC2Client);
const INSTANCE = 'i-0abc';

/** EC2's volumes as the fake keeps them, and CreateVolume's tokens: a token used before answers its volume. */
function fakeEc2() {
  const volumes = new Map<string, Volume>();
  const byToken = new Map<string, string>();
  ec2.reset();
  ec2.on(DescribeInstancesCommand).resolves({
    Reservations: [
      {
        Instances: [
          {
            InstanceId: INSTANCE,
            State: { Name: 'running' },
            Placement: { AvailabilityZone: 'us-east-1b' },
            BlockDeviceMappings: [{ DeviceName: '/dev/sda1' }],
          },
        ],
      },
    ],
  });
  ec2.on(CreateVolumeCommand).callsFake((input: { ClientToken: string; Size: number; TagSpecifications: { Tags: Volume['Tags'] }[] }) => {
    const made = byToken.get(input.ClientToken);
    if (made) return volumes.get(made);
    const volume: Volume = {
      VolumeId: `vol-${volumes.size + 1}`,
      State: 'available',
      Size: input.Size,
      AvailabilityZone: 'us-east-1b',
      Tags: input.TagSpecifications[0]!.Tags,
      Attachments: [],
      CreateTime: new Date(0),
    };
    volumes.set(volume.VolumeId!, volume);
    byToken.set(input.ClientToken, volume.VolumeId!);
    return volume;
  });
  ec2.on(DescribeVolumesCommand).callsFake((input: { VolumeIds?: string[] }) => ({
    Volumes: input.VolumeIds ? input.VolumeIds.flatMap((id) => volumes.get(id) ?? []) : [...volumes.values()],
  }));
  ec2.on(AttachVolumeCommand).callsFake((input: { VolumeId: string; InstanceId: string; Device: string }) => {
    const volume = volumes.get(input.VolumeId)!;
    volume.State = 'in-use';
    volume.Attachments = [{ InstanceId: input.InstanceId, Device: input.Device, State: 'attached' }];
    return {};
  });
  ec2.on(DetachVolumeCommand).callsFake((input: { VolumeId: string }) => {
    const volume = volumes.get(input.VolumeId)!;
    volume.State = 'available';
    volume.Attachments = [];
    return {};
  });
  ec2.on(DeleteVolumeCommand).callsFake((input: { VolumeId: string }) => {
    volumes.delete(input.VolumeId);
    return {};
  });
  return volumes;
}

/** Queues that are there already: this file is about volumes, not the machine's queue. */
const queues: MachineQueues = { ensure: async (_m, id) => `queue-${id}`, remove: async () => undefined, admitOnly: async () => undefined };

let store: Store;
let ec2Volumes: Map<string, Volume>;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  ec2Volumes = fakeEc2();
  await deploy(store, { charm: charms.storage, numUnits: 1, storage: { data: { pool: 'ebs', count: 1 } }, storageProvider: 'ec2' });
  await recordInstance(store, '0', { instanceId: INSTANCE, attempt: 0 });
});

const listed: InstanceInfo = { instanceId: INSTANCE, model: 'default', machineId: '0', state: 'running', addresses: [] };
const provider: Provider = {
  startInstance: () => Promise.reject(new Error('no machine here needs starting')),
  stopInstances: async () => undefined,
  listInstances: async () => [listed],
  volumes: new Ec2Volumes({ client: new EC2Client({ region: 'us-east-1' }), deploymentId: 'dep-1', sleep: async () => undefined }),
};
const deps = () => provisionerDeps(store, provider, queues);
const storage = (id: string) => getItem<StorageInstance>(store, refs.storage(id));

describe('the full reconcile provisions ebs storage', () => {
  it("makes a volume for storage on a machine with an instance, attaches it there, and records it on the storage's item", async () => {
    const result = await reconcileAll(deps());
    expect(result).toMatchObject({ recordedVolumes: ['data/0'], removedStorage: [], failures: [] });
    expect([...ec2Volumes.keys()]).toEqual(['vol-1']);
    expect((await storage('data/0'))?.volume).toEqual({ volumeId: 'vol-1', device: '/dev/sdf', attachedTo: INSTANCE });
    expect(ec2.commandCalls(CreateVolumeCommand)[0]!.args[0].input).toMatchObject({ AvailabilityZone: 'us-east-1b', Size: 1 });
  });

  it('makes one volume however often it runs, one run after another or two at once', async () => {
    await Promise.all([reconcileAll(deps()), reconcileAll(deps())]);
    const again = await reconcileAll(deps());
    expect(again).toMatchObject({ recordedVolumes: [], failures: [] });
    expect([...ec2Volumes.keys()]).toEqual(['vol-1']);
    expect(new Set(ec2.commandCalls(CreateVolumeCommand).map((c) => c.args[0].input.ClientToken)).size).toBe(1);
    expect((await storage('data/0'))?.volume?.volumeId).toBe('vol-1');
  });

  it('deletes the volume of storage destroyed with its unit, and removes the Dead storage', async () => {
    await reconcileAll(deps());
    await setUnitStatus(store, 'storage/0', { agent: { current: 'idle' } });
    await destroyUnit(store, 'storage/0', { destroyStorage: true });
    await storageDetached(store, 'storage/0', 'data/0');
    expect((await storage('data/0'))?.life).toBe('dead');
    const result = await reconcileAll(deps());
    expect(result).toMatchObject({ removedStorage: ['data/0'], failures: [] });
    expect(ec2.commandCalls(DetachVolumeCommand).map((c) => c.args[0].input)).toEqual([{ VolumeId: 'vol-1', InstanceId: INSTANCE }]);
    expect(ec2Volumes.size).toBe(0);
    expect(await storage('data/0')).toBeUndefined();
  });

  it('detaches the volume of storage that outlives its unit and keeps it; released, it stays in the cloud', async () => {
    await reconcileAll(deps());
    await setUnitStatus(store, 'storage/0', { agent: { current: 'idle' } });
    await destroyUnit(store, 'storage/0');
    await storageDetached(store, 'storage/0', 'data/0');
    expect(await reconcileAll(deps())).toMatchObject({ recordedVolumes: ['data/0'], failures: [] });
    expect((await storage('data/0'))?.volume).toEqual({ volumeId: 'vol-1' });
    expect(ec2Volumes.get('vol-1')?.Attachments).toEqual([]);
    await removeStorage(store, 'data/0', { release: true });
    expect(await reconcileAll(deps())).toMatchObject({ recordedVolumes: [], removedStorage: [], failures: [] });
    expect(ec2.commandCalls(DeleteVolumeCommand)).toEqual([]);
    expect((await storage('data/0'))?.life).toBe('dead');
  });

  it("reaps a volume no storage names, reading every model's storage, and keeps the recorded one", async () => {
    await reconcileAll(deps());
    ec2Volumes.set('vol-orphan', { VolumeId: 'vol-orphan', State: 'available', Size: 1, Attachments: [], CreateTime: new Date(0) });
    ec2Volumes.set('vol-1', { ...ec2Volumes.get('vol-1')!, CreateTime: new Date(0) });
    const result = await reconcileAll({ ...deps(), storageClaims: readStorageClaims });
    expect(result).toMatchObject({ reapedVolumes: ['vol-orphan'], failures: [] });
    expect([...ec2Volumes.keys()]).toEqual(['vol-1']);
  });

  it('records nothing over a change made after the step read the storage: the write asserts the item as read', async () => {
    await reconcileAll(deps());
    const seen = (await storage('data/0'))!;
    const stale = { ...seen, volume: undefined };
    expect(await recordStorageVolume(store, stale, { volumeId: 'vol-other' })).toBe('stale');
    expect((await storage('data/0'))?.volume?.volumeId).toBe('vol-1');
  });
});
