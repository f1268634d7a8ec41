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
  EC2ServiceException,
  type Volume,
} from '@aws-sdk/client-ec2';
import { ProviderError, type VolumeRequest } from '#shared/provider/provider.js';
import { Ec2Volumes, volumeClientToken, type Ec2VolumesOptions } from '#shared/provider/ec2/volumes.js';
import { Ec2Provider } from '#shared/provider/ec2/ec2-provider.js';

const ec2 = mockClient(EC2Client);
const client = new EC2Client({ region: 'us-east-1' });
const DEPLOYMENT = '1c2fa620-982a-11e3-aff7-50e2416294e0';

/** A clock the waits read and a sleep that moves it: no test waits for real. */
function fakeTime() {
  let now = 1_000_000;
  const slept: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
    slept,
  };
}

let time: ReturnType<typeof fakeTime>;
const volumes = (options: Partial<Ec2VolumesOptions> = {}) =>
  new Ec2Volumes({ client, deploymentId: DEPLOYMENT, now: time.now, sleep: time.sleep, ...options });

const request = (overrides: Partial<VolumeRequest> = {}): VolumeRequest => ({
  controllerId: 'ctl-1',
  model: 'default',
  storageId: 'data/0',
  attempt: 0,
  sizeMiB: 10 * 1024,
  poolAttributes: {},
  instanceId: 'i-0abc',
  ...overrides,
});

const awsError = (name: string, message: string, status = 400, fault: 'client' | 'server' = 'client') =>
  new EC2ServiceException({ name, message, $fault: fault, $metadata: { httpStatusCode: status } });

const instance = (state = 'running', devices: string[] = ['/dev/sda1']) => ({
  Reservations: [
    {
      Instances: [
        {
          InstanceId: 'i-0abc',
          State: { Name: state as 'running' },
          Placement: { AvailabilityZone: 'us-east-1b' },
          BlockDeviceMappings: devices.map((DeviceName) => ({ DeviceName })),
        },
      ],
    },
  ],
});

const volume = (overrides: Partial<Volume> = {}): Volume => ({
  VolumeId: 'vol-0123456789abcdef0',
  State: 'available',
  Size: 10,
  AvailabilityZone: 'us-east-1b',
  Tags: [
    { Key: 'drover:controller', Value: 'ctl-1' },
    { Key: 'drover:storage', Value: 'data/0' },
  ],
  Attachments: [],
  ...overrides,
});
const attached = (device = '/dev/sdf', state = 'attached') =>
  volume({ State: 'in-use', Attachments: [{ InstanceId: 'i-0abc', State: state as 'attached', Device: device }] });

const createInputs = () => ec2.commandCalls(CreateVolumeCommand).map((c) => c.args[0].input);
const attachInputs = () => ec2.commandCalls(AttachVolumeCommand).map((c) => c.args[0].input);

const failure = async (p: Promise<unknown>): Promise<ProviderError> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
};

beforeEach(() => {
  ec2.reset();
  time = fakeTime();
});

describe('ec2 volumes: ensureVolume', () => {
  it('makes one encrypted gp3 volume in the instance’s zone, tagged as instances are, with the storage’s token', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance());
    ec2.on(CreateVolumeCommand).resolves(volume({ State: 'creating' }));
    const made = await volumes().ensureVolume(request());
    expect(made).toMatchObject({
      volumeId: 'vol-0123456789abcdef0',
      state: 'creating',
      storageId: 'data/0',
      model: 'default',
      sizeGiB: 10,
    });
    expect(createInputs()).toEqual([
      {
        ClientToken: volumeClientToken('ctl-1', DEPLOYMENT, 'default', 'data/0', 0),
        AvailabilityZone: 'us-east-1b',
        Size: 10,
        VolumeType: 'gp3',
        Encrypted: true,
        TagSpecifications: [
          {
            ResourceType: 'volume',
            Tags: [
              { Key: 'drover:controller', Value: 'ctl-1' },
              { Key: 'drover:deployment', Value: DEPLOYMENT },
              { Key: 'drover:storage', Value: 'data/0' },
              { Key: 'Name', Value: 'drover-ctl-1-storage-data-0' },
            ],
          },
        ],
      },
    ]);
  });

  it('tags another model’s volume with its key, and passes the pool’s type, IOPS, throughput and key', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance('pending'));
    ec2.on(CreateVolumeCommand).resolves(volume({ State: 'creating' }));
    await volumes().ensureVolume(
      request({
        model: 'm2',
        sizeMiB: 200 * 1024,
        poolAttributes: { 'volume-type': 'gp3', iops: 20, throughput: '500M', 'kms-key-id': 'alias/d' },
      }),
    );
    const input = createInputs()[0]!;
    expect(input).toMatchObject({ Size: 200, VolumeType: 'gp3', Iops: 4000, Throughput: 500, KmsKeyId: 'alias/d', Encrypted: true });
    expect(input.ClientToken).toBe(volumeClientToken('ctl-1', DEPLOYMENT, 'm2', 'data/0', 0));
    expect(input.TagSpecifications![0]!.Tags).toContainEqual({ Key: 'drover:model', Value: 'm2' });
    expect(input.TagSpecifications![0]!.Tags).toContainEqual({ Key: 'Name', Value: 'drover-ctl-1-m2-storage-data-0' });
  });

  it('gives a retried call the same token, and a new attempt, model, storage or deployment another', () => {
    const token = volumeClientToken('ctl-1', DEPLOYMENT, 'default', 'data/0', 0);
    expect(volumeClientToken('ctl-1', DEPLOYMENT, 'default', 'data/0', 0)).toBe(token);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const others = [
      volumeClientToken('ctl-1', DEPLOYMENT, 'default', 'data/0', 1),
      volumeClientToken('ctl-1', DEPLOYMENT, 'm2', 'data/0', 0),
      volumeClientToken('ctl-1', DEPLOYMENT, 'default', 'data/1', 0),
      volumeClientToken('ctl-1', 'another-deployment', 'default', 'data/0', 0),
    ];
    expect(new Set([token, ...others]).size).toBe(5);
  });

  it('finds the volume an earlier call made when the token’s parameters changed (IdempotentParameterMismatch)', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance());
    ec2.on(CreateVolumeCommand).rejects(awsError('IdempotentParameterMismatch', 'token reused'));
    ec2.on(DescribeVolumesCommand).resolves({ Volumes: [volume()] });
    expect((await volumes().ensureVolume(request())).volumeId).toBe('vol-0123456789abcdef0');
    expect(ec2.commandCalls(DescribeVolumesCommand)[0]!.args[0].input.Filters).toContainEqual({
      Name: 'tag:drover:storage',
      Values: ['data/0'],
    });
  });

  it('takes a mismatch whose volume is not listed yet as transient', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance());
    ec2.on(CreateVolumeCommand).rejects(awsError('IdempotentParameterMismatch', 'token reused'));
    ec2.on(DescribeVolumesCommand).resolves({ Volumes: [] });
    expect((await failure(volumes().ensureVolume(request()))).transient).toBe(true);
  });

  it('refuses, before any call, a pool or size Juju refuses: not transient', async () => {
    const e = await failure(volumes().ensureVolume(request({ poolAttributes: { 'volume-type': 'io1' } })));
    expect(e).toMatchObject({ message: 'volume type is "io1", IOPS unspecified or zero', transient: false });
    expect(ec2.calls()).toEqual([]);
  });

  it('refuses an instance that is not running, and takes one not listed yet as transient', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance('terminated'));
    expect(await failure(volumes().ensureVolume(request()))).toMatchObject({
      message: 'cannot attach to non-running instance i-0abc',
      transient: false,
    });
    ec2.on(DescribeInstancesCommand).rejects(awsError('InvalidInstanceID.NotFound', "The instance ID 'i-0abc' does not exist"));
    expect((await failure(volumes().ensureVolume(request()))).transient).toBe(true);
    expect(createInputs()).toEqual([]);
  });

  it('refuses a replayed volume that failed or is going', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance());
    ec2.on(CreateVolumeCommand).resolves(volume({ State: 'error' }));
    expect(await failure(volumes().ensureVolume(request()))).toMatchObject({
      message: 'volume vol-0123456789abcdef0 made for storage data/0 is error',
      transient: false,
    });
  });

  it.each([
    ['RequestLimitExceeded', 'Request limit exceeded.', 503, 'server', true],
    ['VolumeLimitExceeded', 'You have exceeded your maximum gp3 storage limit', 400, 'client', false],
    ['UnauthorizedOperation', 'You are not authorized to perform this operation.', 403, 'client', false],
    ['InvalidKMSKey.InvalidState', 'The KMS key is disabled', 400, 'client', false],
  ] as const)('classifies %s from CreateVolume as transient: %s', async (code, message, status, fault, transient) => {
    ec2.on(DescribeInstancesCommand).resolves(instance());
    ec2.on(CreateVolumeCommand).rejects(awsError(code, message, status, fault));
    const e = await failure(volumes().ensureVolume(request()));
    expect(e.message).toBe(`cannot create volume: ${message} (${code})`);
    expect(e.transient).toBe(transient);
  });
});

describe('ec2 volumes: attachVolume', () => {
  it('waits for the new volume, attaches it under the first free name, and waits for the attachment', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance('running', ['/dev/sda1', '/dev/sdf', '/dev/xvdg']));
    ec2
      .on(DescribeVolumesCommand)
      .resolvesOnce({ Volumes: [volume({ State: 'creating' })] })
      .resolvesOnce({ Volumes: [volume()] })
      .resolvesOnce({ Volumes: [attached('/dev/sdh', 'attaching')] })
      .resolves({ Volumes: [attached('/dev/sdh')] });
    ec2.on(AttachVolumeCommand).resolves({});
    expect(await volumes().attachVolume('vol-0123456789abcdef0', 'i-0abc')).toEqual({ device: '/dev/sdh' });
    expect(attachInputs()).toEqual([{ VolumeId: 'vol-0123456789abcdef0', InstanceId: 'i-0abc', Device: '/dev/sdh' }]);
    expect(time.slept).toEqual([500, 500]);
  });

  it('tries the next name when EC2 says one is in use, in either of its words', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance());
    ec2
      .on(DescribeVolumesCommand)
      .resolvesOnce({ Volumes: [volume()] })
      .resolves({ Volumes: [attached('/dev/sdh')] });
    ec2
      .on(AttachVolumeCommand)
      .rejectsOnce(awsError('InvalidDevice.InUse', 'in use'))
      .rejectsOnce(awsError('InvalidParameterValue', 'Invalid value /dev/sdg: Attachment point /dev/sdg is already in use'))
      .resolves({});
    expect(await volumes().attachVolume('vol-0123456789abcdef0', 'i-0abc')).toEqual({ device: '/dev/sdh' });
    expect(attachInputs().map((i) => i.Device)).toEqual(['/dev/sdf', '/dev/sdg', '/dev/sdh']);
  });

  it('answers the device of a volume already attached to the instance, without attaching again', async () => {
    ec2.on(DescribeVolumesCommand).resolves({ Volumes: [attached('/dev/sdk')] });
    expect(await volumes().attachVolume('vol-0123456789abcdef0', 'i-0abc')).toEqual({ device: '/dev/sdk' });
    expect(attachInputs()).toEqual([]);
  });

  it('refuses a volume attached to another instance', async () => {
    ec2.on(DescribeVolumesCommand).resolves({
      Volumes: [volume({ State: 'in-use', Attachments: [{ InstanceId: 'i-other', State: 'attached', Device: '/dev/sdf' }] })],
    });
    expect(await failure(volumes().attachVolume('vol-0123456789abcdef0', 'i-0abc'))).toMatchObject({
      message: 'volume vol-0123456789abcdef0 is attached to i-other',
      transient: false,
    });
  });

  it('gives up waiting within its bound, as a transient error the next reconcile picks up', async () => {
    ec2.on(DescribeVolumesCommand).resolves({ Volumes: [volume({ State: 'creating' })] });
    const e = await failure(volumes({ waits: { createdMs: 2_000, pollMs: 500 } }).attachVolume('vol-0123456789abcdef0', 'i-0abc'));
    expect(e).toMatchObject({
      message: 'timed out waiting for volume vol-0123456789abcdef0 to become available (creating)',
      transient: true,
    });
    expect(time.slept).toEqual([500, 500, 500, 500]);
  });

  it('takes an instance still starting as transient, and a full instance as not', async () => {
    ec2.on(DescribeInstancesCommand).resolves(instance('pending'));
    ec2.on(DescribeVolumesCommand).resolves({ Volumes: [volume()] });
    ec2.on(AttachVolumeCommand).rejects(awsError('IncorrectState', "Instance 'i-0abc' is not 'running'."));
    expect((await failure(volumes().attachVolume('vol-0123456789abcdef0', 'i-0abc'))).transient).toBe(true);
    const full = ['/dev/sda1', ...'fghijklmnopqrstuvwxyz'.split('').map((l) => `/dev/sd${l}`)];
    ec2.on(DescribeInstancesCommand).resolves(instance('running', full));
    expect(await failure(volumes().attachVolume('vol-0123456789abcdef0', 'i-0abc'))).toMatchObject({
      message: 'too many EBS volumes to attach',
      transient: false,
    });
  });
});

describe('ec2 volumes: detach, delete, list', () => {
  it('detaches and waits for the volume to be free; one already detached or gone is fine', async () => {
    ec2.on(DetachVolumeCommand).resolves({});
    ec2
      .on(DescribeVolumesCommand)
      .resolvesOnce({ Volumes: [attached('/dev/sdf', 'detaching')] })
      .resolves({ Volumes: [volume()] });
    await volumes().detachVolume('vol-0123456789abcdef0', 'i-0abc');
    expect(ec2.commandCalls(DetachVolumeCommand)[0]!.args[0].input).toEqual({ VolumeId: 'vol-0123456789abcdef0', InstanceId: 'i-0abc' });
    for (const code of ['IncorrectState', 'InvalidAttachment.NotFound', 'InvalidVolume.NotFound']) {
      ec2.on(DetachVolumeCommand).rejects(awsError(code, 'already so'));
      await volumes().detachVolume('vol-0123456789abcdef0', 'i-0abc');
    }
  });

  it('deletes; a volume already gone is fine, one still in use is transient, a refusal is not', async () => {
    ec2.on(DeleteVolumeCommand).resolves({});
    await volumes().deleteVolume('vol-0123456789abcdef0');
    expect(ec2.commandCalls(DeleteVolumeCommand)[0]!.args[0].input).toEqual({ VolumeId: 'vol-0123456789abcdef0' });
    ec2.on(DeleteVolumeCommand).rejects(awsError('InvalidVolume.NotFound', 'gone'));
    await volumes().deleteVolume('vol-0123456789abcdef0');
    ec2.on(DeleteVolumeCommand).rejects(awsError('VolumeInUse', 'vol-0123456789abcdef0 is currently attached to i-0abc'));
    expect((await failure(volumes().deleteVolume('vol-0123456789abcdef0'))).transient).toBe(true);
    ec2.on(DeleteVolumeCommand).rejects(awsError('UnauthorizedOperation', 'not authorized', 403));
    expect((await failure(volumes().deleteVolume('vol-0123456789abcdef0'))).transient).toBe(false);
  });

  it('lists the storage volumes of this controller’s deployment, page by page, never a root volume', async () => {
    ec2
      .on(DescribeVolumesCommand)
      .resolvesOnce({
        Volumes: [
          volume(),
          volume({
            VolumeId: 'vol-root',
            State: 'in-use',
            Attachments: [{ InstanceId: 'i-0abc', Device: '/dev/sda1', State: 'attached' }],
          }),
        ],
        NextToken: 'page-2',
      })
      .resolves({
        Volumes: [
          volume({
            VolumeId: 'vol-m2',
            CreateTime: new Date(5_000),
            Tags: [
              { Key: 'drover:storage', Value: 'logs/3' },
              { Key: 'drover:model', Value: 'm2' },
            ],
          }),
        ],
      });
    const listed = await volumes().listVolumes('ctl-1');
    expect(listed.map((v) => [v.volumeId, v.model, v.storageId, v.createdAt])).toEqual([
      ['vol-0123456789abcdef0', 'default', 'data/0', undefined],
      ['vol-m2', 'm2', 'logs/3', 5_000],
    ]);
    const inputs = ec2.commandCalls(DescribeVolumesCommand).map((c) => c.args[0].input);
    expect(inputs[0]!.Filters).toEqual([
      { Name: 'tag:drover:controller', Values: ['ctl-1'] },
      { Name: 'tag:drover:deployment', Values: [DEPLOYMENT] },
      { Name: 'tag-key', Values: ['drover:storage'] },
    ]);
    expect(inputs[1]!.NextToken).toBe('page-2');
  });

  it('is the ec2 provider’s volumes', () => {
    const provider = new Ec2Provider({ client, region: 'us-east-1', deploymentId: DEPLOYMENT, agentBundle: { url: 'https://b/a.tgz' } });
    expect(provider.volumes).toBeInstanceOf(Ec2Volumes);
  });
});
