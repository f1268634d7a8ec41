import { describe, it, expect, beforeEach } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  DescribeImagesCommand,
  DescribeInstancesCommand,
  EC2Client,
  EC2ServiceException,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { parseConstraints } from '../../../shared/domain/constraints.js';
import { ProviderError, type StartInstanceRequest } from '../../../shared/provider/provider.js';
import { clientToken, Ec2Provider, type Ec2ProviderOptions } from '../../../shared/provider/ec2/ec2-provider.js';

const ec2 = mockClient(EC2Client);
const client = new EC2Client({ region: 'us-east-1' });
const CREDENTIAL = 'machine-7-secret-credential';
const BUNDLE_URL = 'https://drover-ctl-1.s3.amazonaws.com/agent.tgz?X-Amz-Signature=sig';

const provider = (options: Partial<Ec2ProviderOptions> = {}) =>
  new Ec2Provider({
    client,
    region: 'us-east-1',
    subnetId: 'subnet-1',
    securityGroupIds: ['sg-1'],
    instanceProfileArn: 'arn:aws:iam::123456789012:instance-profile/drover-machine',
    agentBundleUrl: BUNDLE_URL,
    findImage: async (series, arch) => `ami-${series}-${arch}`,
    ...options,
  });

const request = (overrides: Partial<StartInstanceRequest> = {}): StartInstanceRequest => ({
  controllerId: 'ctl-1',
  machineId: '7',
  attempt: 0,
  series: 'jammy',
  constraints: {},
  agent: { apiUrl: 'https://api.example.com', credential: CREDENTIAL, queueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q7' },
  ...overrides,
});

const awsError = (name: string, message: string, status = 400, fault: 'client' | 'server' = 'client') =>
  new EC2ServiceException({ name, message, $fault: fault, $metadata: { httpStatusCode: status } });

const launched = {
  Instances: [
    {
      InstanceId: 'i-0abc',
      State: { Name: 'pending' as const },
      PrivateIpAddress: '10.0.0.7',
      Placement: { AvailabilityZone: 'us-east-1a' },
    },
  ],
};

const runInputs = () => ec2.commandCalls(RunInstancesCommand).map((c) => c.args[0].input);
const userDataOf = (input: { UserData?: string | undefined }) => Buffer.from(input.UserData ?? '', 'base64').toString('utf8');

beforeEach(() => {
  ec2.reset();
});

describe('ec2 provider: startInstance', () => {
  it('sends exactly one RunInstances for the cheapest fitting type and the series image', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await provider().startInstance(request());
    const tags = [
      { Key: 'drover:controller', Value: 'ctl-1' },
      { Key: 'drover:machine', Value: '7' },
      { Key: 'Name', Value: 'drover-ctl-1-machine-7' },
    ];
    expect(runInputs()).toEqual([
      {
        ClientToken: clientToken('ctl-1', '7', 0),
        MinCount: 1,
        MaxCount: 1,
        ImageId: 'ami-jammy-amd64',
        InstanceType: 't3a.micro',
        UserData: expect.any(String),
        MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled' },
        BlockDeviceMappings: [
          {
            DeviceName: '/dev/sda1',
            Ebs: { VolumeSize: 8, VolumeType: 'gp3', Encrypted: true, DeleteOnTermination: true },
          },
        ],
        TagSpecifications: [
          { ResourceType: 'instance', Tags: tags },
          { ResourceType: 'volume', Tags: tags },
        ],
        SubnetId: 'subnet-1',
        SecurityGroupIds: ['sg-1'],
        IamInstanceProfile: { Arn: 'arn:aws:iam::123456789012:instance-profile/drover-machine' },
      },
    ]);
  });

  it('returns the instance with its hardware in Juju form', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    expect(await provider().startInstance(request({ constraints: parseConstraints('mem=2G root-disk=20G') }))).toEqual({
      instanceId: 'i-0abc',
      machineId: '7',
      state: 'pending',
      hardware: 'arch=amd64 cores=2 cpu-power=616 mem=2048M root-disk=20480M availability-zone=us-east-1a',
      addresses: ['10.0.0.7'],
    });
  });

  it('sizes the encrypted gp3 root volume from root-disk', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await provider().startInstance(request({ constraints: parseConstraints('root-disk=20000M') }));
    expect(runInputs()[0]?.BlockDeviceMappings?.[0]?.Ebs).toEqual({
      VolumeSize: 20,
      VolumeType: 'gp3',
      Encrypted: true,
      DeleteOnTermination: true,
    });
  });

  it('uses the arm64 image for an arm64 type', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await provider().startInstance(request({ series: 'noble', constraints: parseConstraints('arch=arm64 cores=4') }));
    expect(runInputs()[0]).toMatchObject({ ImageId: 'ami-noble-arm64', InstanceType: 'a1.xlarge' });
  });

  it('uses the launch template when configured, leaving out what it was not given', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await new Ec2Provider({
      client,
      region: 'us-east-1',
      launchTemplateId: 'lt-1',
      agentBundleUrl: BUNDLE_URL,
      findImage: async () => 'ami-1',
    }).startInstance(request());
    const input = runInputs()[0];
    expect(input?.LaunchTemplate).toEqual({ LaunchTemplateId: 'lt-1', Version: '$Default' });
    expect(input).not.toHaveProperty('SubnetId');
    expect(input).not.toHaveProperty('SecurityGroupIds');
    expect(input).not.toHaveProperty('IamInstanceProfile');
  });

  it('keeps the token of a retried attempt, so a retry never starts a second instance', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await provider().startInstance(request());
    await provider().startInstance(request());
    const [first, second] = runInputs();
    expect(first?.ClientToken).toBe(second?.ClientToken);
  });

  it('changes the token with the attempt, the machine and the controller', () => {
    const tokens = new Set([
      clientToken('ctl-1', '7', 0),
      clientToken('ctl-1', '7', 1),
      clientToken('ctl-1', '8', 0),
      clientToken('ctl-2', '7', 0),
      clientToken('ctl-1', '70', 0),
      clientToken('ctl-17', '0', 0),
    ]);
    expect(tokens.size).toBe(6);
  });

  it('makes a token EC2 accepts: at most 64 ASCII characters', () => {
    expect(clientToken('c'.repeat(500), 'm', 99)).toMatch(/^[\x21-\x7e]{1,64}$/);
  });

  it('puts the credential in the user data only, never in tags', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await provider().startInstance(request());
    const input = runInputs()[0]!;
    expect(userDataOf(input)).toContain(`DROVER_AGENT_CREDENTIAL=${CREDENTIAL}`);
    expect(userDataOf(input)).toContain('DROVER_MACHINE_ID=7');
    expect(JSON.stringify(input.TagSpecifications)).not.toContain(CREDENTIAL);
    expect(JSON.stringify({ ...input, UserData: undefined })).not.toContain(CREDENTIAL);
  });

  it('downloads the agent bundle from a URL minted for each start', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    let n = 0;
    const p = provider({ agentBundleUrl: async () => `https://bucket/agent.tgz?sig=${++n}` });
    await p.startInstance(request());
    expect(userDataOf(runInputs()[0]!)).toContain("'https://bucket/agent.tgz?sig=1'");
  });

  it('finds the instance the first call started when a retry is refused for changed parameters', async () => {
    ec2.on(RunInstancesCommand).rejects(awsError('IdempotentParameterMismatch', 'Arguments on this idempotent request are inconsistent'));
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [{ Instances: [{ InstanceId: 'i-first', State: { Name: 'running' }, PrivateIpAddress: '10.0.0.9' }] }],
    });
    const info = await provider().startInstance(request({ attempt: 3 }));
    expect(info).toMatchObject({ instanceId: 'i-first', machineId: '7', state: 'running', addresses: ['10.0.0.9'] });
    expect(ec2.commandCalls(DescribeInstancesCommand)[0]?.args[0].input).toEqual({
      Filters: [{ Name: 'client-token', Values: [clientToken('ctl-1', '7', 3)] }],
    });
  });

  it('refuses unsatisfiable constraints without calling EC2', async () => {
    const err = await provider()
      .startInstance(request({ constraints: parseConstraints('cores=1000') }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({
      transient: false,
      message: 'no instance types in us-east-1 matching constraints "arch=amd64 cores=1000 cpu-power=100"',
    });
    expect(ec2.calls()).toHaveLength(0);
  });

  it('refuses a series without images (default lookup)', async () => {
    const p = new Ec2Provider({ client, region: 'us-east-1', agentBundleUrl: BUNDLE_URL });
    const err = await p.startInstance(request({ series: 'xenial' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: false, message: 'no metadata for "xenial" images in us-east-1 with arch amd64' });
    expect(ec2.calls()).toHaveLength(0);
  });

  it('looks the image up with DescribeImages by default', async () => {
    ec2.on(DescribeImagesCommand).resolves({ Images: [{ ImageId: 'ami-canonical', CreationDate: '2024-01-01' }] });
    ec2.on(RunInstancesCommand).resolves(launched);
    await new Ec2Provider({ client, region: 'us-east-1', agentBundleUrl: BUNDLE_URL }).startInstance(request());
    expect(runInputs()[0]?.ImageId).toBe('ami-canonical');
  });

  describe('maps AWS errors to provisioning errors', () => {
    const cases: [string, Error, boolean][] = [
      [
        'InsufficientInstanceCapacity is transient',
        awsError('InsufficientInstanceCapacity', 'We currently do not have sufficient t3a.micro capacity', 500, 'server'),
        true,
      ],
      ['RequestLimitExceeded is transient', awsError('RequestLimitExceeded', 'Request limit exceeded.', 503), true],
      ['throttling is transient', awsError('ThrottlingException', 'Rate exceeded'), true],
      ['a 5xx is transient', awsError('InternalError', 'An internal error has occurred', 500, 'server'), true],
      ['an unknown 5xx is transient', awsError('Whatever', 'Bad gateway', 502, 'server'), true],
      ['a network failure is transient', Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }), true],
      [
        'InvalidParameterValue is not transient',
        awsError('InvalidParameterValue', 'Value (x) for parameter iamInstanceProfile.arn is invalid'),
        false,
      ],
      [
        'InvalidParameterCombination is not transient',
        awsError('InvalidParameterCombination', 'Network interfaces and an instance-level subnet ID may not be specified'),
        false,
      ],
      ['Unsupported is not transient', awsError('Unsupported', 'The requested configuration is currently not supported.'), false],
      [
        'UnauthorizedOperation is not transient',
        awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.', 403),
        false,
      ],
      ['AuthFailure is not transient', awsError('AuthFailure', 'AWS was not able to validate the provided access credentials', 401), false],
      [
        'a vCPU quota is not transient',
        awsError('VcpuLimitExceeded', 'You have requested more vCPU capacity than your current vCPU limit'),
        false,
      ],
    ];
    for (const [name, error, transient] of cases) {
      it(name, async () => {
        ec2.on(RunInstancesCommand).rejects(error);
        const err = await provider()
          .startInstance(request())
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ProviderError);
        expect((err as ProviderError).transient).toBe(transient);
        expect((err as ProviderError).message).toContain(`cannot run instances: ${error.message}`);
        expect((err as ProviderError).message).not.toContain(CREDENTIAL);
      });
    }

    it('names the AWS code after the message', async () => {
      ec2.on(RunInstancesCommand).rejects(awsError('Unsupported', 'The requested configuration is currently not supported.'));
      await expect(provider().startInstance(request())).rejects.toThrow(
        'cannot run instances: The requested configuration is currently not supported. (Unsupported)',
      );
    });
  });
});

describe('ec2 provider: stopInstances', () => {
  const terminated = () => ec2.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input.InstanceIds);

  it('terminates the instances', async () => {
    ec2.on(TerminateInstancesCommand).resolves({});
    await provider().stopInstances(['i-1', 'i-2']);
    expect(terminated()).toEqual([['i-1', 'i-2']]);
  });

  it('sends nothing for nothing', async () => {
    await provider().stopInstances([]);
    expect(ec2.calls()).toHaveLength(0);
  });

  it('terminates in batches of 1000, each id once', async () => {
    ec2.on(TerminateInstancesCommand).resolves({});
    const ids = Array.from({ length: 2500 }, (_, i) => `i-${i.toString(16)}`);
    await provider().stopInstances([...ids, 'i-0']);
    expect(terminated().map((batch) => batch?.length)).toEqual([1000, 1000, 500]);
    expect(terminated().flat()).toEqual(ids);
  });

  it('ignores instances already gone, and still terminates the others', async () => {
    ec2
      .on(TerminateInstancesCommand)
      .rejectsOnce(awsError('InvalidInstanceID.NotFound', "The instance IDs 'i-0aa, i-0cc' do not exist"))
      .resolves({});
    await provider().stopInstances(['i-0aa', 'i-0bb', 'i-0cc', 'i-0dd']);
    expect(terminated()).toEqual([
      ['i-0aa', 'i-0bb', 'i-0cc', 'i-0dd'],
      ['i-0bb', 'i-0dd'],
    ]);
  });

  it('succeeds when every instance is already gone', async () => {
    ec2.on(TerminateInstancesCommand).rejects(awsError('InvalidInstanceID.NotFound', "The instance ID 'i-0aa' does not exist"));
    await expect(provider().stopInstances(['i-0aa'])).resolves.toBeUndefined();
    expect(terminated()).toEqual([['i-0aa']]);
  });

  it('falls back to one call per instance when EC2 does not say which are gone', async () => {
    ec2
      .on(TerminateInstancesCommand)
      .rejectsOnce(awsError('InvalidInstanceID.NotFound', 'Some instances do not exist'))
      .resolvesOnce({})
      .rejectsOnce(awsError('InvalidInstanceID.NotFound', 'does not exist'))
      .resolves({});
    await provider().stopInstances(['i-1', 'i-2', 'i-3']);
    expect(terminated()).toEqual([['i-1', 'i-2', 'i-3'], ['i-1'], ['i-2'], ['i-3']]);
  });

  it('reports other failures', async () => {
    ec2.on(TerminateInstancesCommand).rejects(awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.', 403));
    await expect(provider().stopInstances(['i-1'])).rejects.toMatchObject({
      transient: false,
      message: 'cannot terminate instances: You are not authorized to perform this operation. (UnauthorizedOperation)',
    });
  });
});

describe('ec2 provider: listInstances', () => {
  it("lists this controller's live instances across pages, with their machines", async () => {
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({
        Reservations: [
          {
            Instances: [
              {
                InstanceId: 'i-1',
                State: { Name: 'running' },
                PrivateIpAddress: '10.0.0.1',
                PublicIpAddress: '3.3.3.3',
                Tags: [
                  { Key: 'drover:controller', Value: 'ctl-1' },
                  { Key: 'drover:machine', Value: '0' },
                ],
              },
            ],
          },
        ],
        NextToken: 'page-2',
      })
      .resolvesOnce({
        Reservations: [
          { Instances: [{ InstanceId: 'i-2', State: { Name: 'stopped' }, Tags: [{ Key: 'drover:controller', Value: 'ctl-1' }] }] },
        ],
      });
    expect(await provider().listInstances('ctl-1')).toEqual([
      { instanceId: 'i-1', machineId: '0', state: 'running', addresses: ['10.0.0.1', '3.3.3.3'] },
      { instanceId: 'i-2', machineId: '', state: 'stopped', addresses: [] },
    ]);
    const filters = [
      { Name: 'tag:drover:controller', Values: ['ctl-1'] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped'] },
    ];
    expect(ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input)).toEqual([
      { Filters: filters, MaxResults: 1000 },
      { Filters: filters, MaxResults: 1000, NextToken: 'page-2' },
    ]);
  });

  it('reports a throttled listing as transient', async () => {
    ec2.on(DescribeInstancesCommand).rejects(awsError('RequestLimitExceeded', 'Request limit exceeded.', 503));
    await expect(provider().listInstances('ctl-1')).rejects.toMatchObject({ transient: true });
  });
});
