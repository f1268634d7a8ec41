import { describe, it, expect, beforeEach } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeSubnetsCommand,
  EC2Client,
  EC2ServiceException,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { parseConstraints } from '#shared/domain/constraints.js';
import { ProviderError, type StartInstanceRequest } from '#shared/provider/provider.js';
import { clientToken, Ec2Provider, type Ec2ProviderOptions } from '#shared/provider/ec2/ec2-provider.js';

const ec2 = mockClient(EC2Client);
const client = new EC2Client({ region: 'us-east-1' });
const CREDENTIAL = 'machine-7-secret-credential';
const BUNDLE_URL = 'https://drover-ctl-1.s3.amazonaws.com/agent.tgz?X-Amz-Signature=sig';
const DEPLOYMENT = '1c2fa620-982a-11e3-aff7-50e2416294e0';

const provider = (options: Partial<Ec2ProviderOptions> = {}) =>
  new Ec2Provider({
    client,
    region: 'us-east-1',
    deploymentId: DEPLOYMENT,
    subnetIds: ['subnet-1'],
    securityGroupIds: ['sg-1'],
    instanceProfileArn: 'arn:aws:iam::123456789012:instance-profile/drover-machine',
    agentBundle: { url: BUNDLE_URL },
    findImage: async (series, arch) => `ami-${series}-${arch}`,
    ...options,
  });

const request = (overrides: Partial<StartInstanceRequest> = {}): StartInstanceRequest => ({
  controllerId: 'ctl-1',
  model: 'default',
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
      { Key: 'drover:deployment', Value: DEPLOYMENT },
      { Key: 'drover:machine', Value: '7' },
      { Key: 'Name', Value: 'drover-ctl-1-machine-7' },
    ];
    expect(runInputs()).toEqual([
      {
        ClientToken: clientToken('ctl-1', DEPLOYMENT, 'default', '7', 0),
        MinCount: 1,
        MaxCount: 1,
        ImageId: 'ami-jammy-amd64',
        InstanceType: 't3a.micro',
        UserData: expect.any(String),
        MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled', HttpPutResponseHopLimit: 1 },
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
        SecurityGroupIds: ['sg-1'],
        IamInstanceProfile: { Arn: 'arn:aws:iam::123456789012:instance-profile/drover-machine' },
        SubnetId: 'subnet-1',
      },
    ]);
  });

  it('returns the instance with its hardware in Juju form', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    expect(await provider().startInstance(request({ constraints: parseConstraints('mem=2G root-disk=20G') }))).toEqual({
      instanceId: 'i-0abc',
      model: 'default',
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
      deploymentId: DEPLOYMENT,
      launchTemplateId: 'lt-1',
      agentBundle: { url: BUNDLE_URL },
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

  it('changes the token with the attempt, the machine, the deployment and the controller', () => {
    const tokens = new Set([
      clientToken('ctl-1', DEPLOYMENT, 'default', '7', 0),
      clientToken('ctl-1', DEPLOYMENT, 'default', '7', 1),
      clientToken('ctl-1', DEPLOYMENT, 'default', '8', 0),
      clientToken('ctl-2', DEPLOYMENT, 'default', '7', 0),
      clientToken('ctl-1', 'another-deployment', 'default', '7', 0),
      clientToken('ctl-1', DEPLOYMENT, 'default', '70', 0),
      clientToken('ctl-17', DEPLOYMENT, 'default', '0', 0),
      clientToken('ctl-1', `${DEPLOYMENT}7`, 'default', '', 0),
    ]);
    expect(tokens.size).toBe(8);
  });

  it("tells machine 0 of another model from `default`'s by token, tags and the agent's model; `default`'s stay as they were", async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await provider().startInstance(request({ machineId: '0' }));
    await provider().startInstance(request({ model: '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70', machineId: '0' }));
    const [inDefault, inOther] = runInputs();
    expect(inDefault?.ClientToken).toBe(clientToken('ctl-1', DEPLOYMENT, 'default', '0', 0));
    expect(inOther?.ClientToken).toBe(clientToken('ctl-1', DEPLOYMENT, '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70', '0', 0));
    expect(inOther?.ClientToken).not.toBe(inDefault?.ClientToken);
    const tags = (input: typeof inDefault) => input?.TagSpecifications?.[0]?.Tags ?? [];
    expect(tags(inDefault).map((t) => t.Key)).not.toContain('drover:model');
    expect(tags(inDefault)).toContainEqual({ Key: 'Name', Value: 'drover-ctl-1-machine-0' });
    expect(tags(inOther)).toContainEqual({ Key: 'drover:model', Value: '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70' });
    expect(tags(inOther)).toContainEqual({ Key: 'Name', Value: 'drover-ctl-1-5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70-machine-0' });
    expect(userDataOf(inDefault!)).not.toContain('DROVER_MODEL');
    expect(userDataOf(inOther!)).toContain('DROVER_MODEL=5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70');
  });

  it('makes a token EC2 accepts: at most 64 ASCII characters', () => {
    expect(clientToken('c'.repeat(500), 'd'.repeat(500), 'default', 'm', 99)).toMatch(/^[\x21-\x7e]{1,64}$/);
  });

  it('hands the instance no credential, even one in the request: its identity is the instance role', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await provider().startInstance(request());
    const input = runInputs()[0]!;
    expect(userDataOf(input)).toContain('DROVER_MACHINE_ID=7');
    expect(userDataOf(input)).not.toContain(CREDENTIAL);
    expect(userDataOf(input)).not.toContain('CREDENTIAL');
    expect(JSON.stringify(input)).not.toContain(CREDENTIAL);
  });

  it('renders the same user data for every retry of one launch, so RunInstances can replay it', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    const p = provider({ agentBundle: { bucket: 'cdk-assets', key: 'abc.tgz' } });
    await p.startInstance(request());
    await p.startInstance(request());
    const [first, second] = runInputs();
    expect(first!.ClientToken).toBe(second!.ClientToken);
    expect(first!.UserData).toBe(second!.UserData);
    expect(userDataOf(first!)).toContain("s3_get 'cdk-assets' 'abc.tgz' 'us-east-1' \"$work/agent.tgz\"");
  });

  it('finds the instance the first call started when a retry is refused for changed parameters', async () => {
    ec2.on(RunInstancesCommand).rejects(awsError('IdempotentParameterMismatch', 'Arguments on this idempotent request are inconsistent'));
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [{ Instances: [{ InstanceId: 'i-first', State: { Name: 'running' }, PrivateIpAddress: '10.0.0.9' }] }],
    });
    const info = await provider().startInstance(request({ attempt: 3 }));
    expect(info).toMatchObject({ instanceId: 'i-first', machineId: '7', state: 'running', addresses: ['10.0.0.9'] });
    expect(ec2.commandCalls(DescribeInstancesCommand)[0]?.args[0].input).toEqual({
      Filters: [{ Name: 'client-token', Values: [clientToken('ctl-1', DEPLOYMENT, 'default', '7', 3)] }],
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
    const p = new Ec2Provider({ client, region: 'us-east-1', deploymentId: DEPLOYMENT, agentBundle: { url: BUNDLE_URL } });
    const err = await p.startInstance(request({ series: 'xenial' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: false, message: 'no metadata for "xenial" images in us-east-1 with arch amd64' });
    expect(ec2.calls()).toHaveLength(0);
  });

  it('looks the image up with DescribeImages by default', async () => {
    ec2.on(DescribeImagesCommand).resolves({ Images: [{ ImageId: 'ami-canonical', CreationDate: '2024-01-01' }] });
    ec2.on(RunInstancesCommand).resolves(launched);
    await new Ec2Provider({ client, region: 'us-east-1', deploymentId: DEPLOYMENT, agentBundle: { url: BUNDLE_URL } }).startInstance(
      request(),
    );
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
              {
                InstanceId: 'i-3',
                State: { Name: 'running' },
                Tags: [
                  { Key: 'drover:controller', Value: 'ctl-1' },
                  { Key: 'drover:model', Value: '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70' },
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
    // An instance without a model tag is a `default` machine's, as every one started before there were many models.
    expect(await provider().listInstances('ctl-1')).toEqual([
      { instanceId: 'i-1', model: 'default', machineId: '0', state: 'running', addresses: ['10.0.0.1', '3.3.3.3'] },
      { instanceId: 'i-3', model: '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70', machineId: '0', state: 'running', addresses: [] },
      { instanceId: 'i-2', model: 'default', machineId: '', state: 'stopped', addresses: [] },
    ]);
    const filters = [
      { Name: 'tag:drover:controller', Values: ['ctl-1'] },
      { Name: 'tag:drover:deployment', Values: [DEPLOYMENT] },
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

describe('ec2 provider: across deployments, a terminated instance is never adopted', () => {
  const OLD = 'old-deployment-uuid';
  const NEW = 'new-deployment-uuid';
  const terminated = { InstanceId: 'i-0old', State: { Name: 'terminated' as const } };

  it('gives a redeployed controller new tokens, so EC2 does not replay the old instance of machine 0', async () => {
    // EC2 keeps the old deployment's token for a day after its instance is terminated: a launch
    // with that token replays the terminated instance, any other token starts a new one.
    const oldToken = clientToken('ctl-1', OLD, 'default', '0', 0);
    ec2.on(RunInstancesCommand).resolves(launched);
    ec2.on(RunInstancesCommand, { ClientToken: oldToken }).resolves({ Instances: [terminated] });
    const info = await provider({ deploymentId: NEW }).startInstance(request({ machineId: '0' }));
    expect(info.instanceId).toBe('i-0abc');
    expect(runInputs().map((i) => i.ClientToken)).toEqual([clientToken('ctl-1', NEW, 'default', '0', 0)]);
    expect(clientToken('ctl-1', NEW, 'default', '0', 0)).not.toBe(oldToken);
  });

  const refusals: [string, (replay: object) => void, string, string][] = [
    [
      'a replayed launch returns a terminated instance',
      (replay) => ec2.on(RunInstancesCommand).resolves({ Instances: [replay] }),
      'terminated',
      'was terminated',
    ],
    [
      'a replayed launch returns an instance shutting down',
      (replay) => ec2.on(RunInstancesCommand).resolves({ Instances: [replay] }),
      'shutting-down',
      'is shutting down',
    ],
    [
      'the client-token lookup after a mismatch finds only a terminated instance',
      (replay) => {
        ec2
          .on(RunInstancesCommand)
          .rejects(awsError('IdempotentParameterMismatch', 'Arguments on this idempotent request are inconsistent'));
        ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [replay] }] });
      },
      'terminated',
      'was terminated',
    ],
    [
      'the client-token lookup after a mismatch finds only an instance shutting down',
      (replay) => {
        ec2
          .on(RunInstancesCommand)
          .rejects(awsError('IdempotentParameterMismatch', 'Arguments on this idempotent request are inconsistent'));
        ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [replay] }] });
      },
      'shutting-down',
      'is shutting down',
    ],
  ];
  for (const [name, arrange, state, what] of refusals) {
    it(`refuses, not adopts, when ${name}`, async () => {
      arrange({ InstanceId: 'i-0abc', State: { Name: state } });
      const err = await provider()
        .startInstance(request())
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({
        transient: false,
        message: `instance i-0abc started for machine 7 ${what}; run "drover retry-provisioning 7" to start another`,
      });
    });
  }

  it('adopts the live instance of a token, never a terminated one listed with it', async () => {
    ec2.on(RunInstancesCommand).rejects(awsError('IdempotentParameterMismatch', 'Arguments on this idempotent request are inconsistent'));
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [{ Instances: [terminated] }, { Instances: [{ InstanceId: 'i-live', State: { Name: 'running' } }] }],
    });
    expect((await provider().startInstance(request())).instanceId).toBe('i-live');
  });
});

describe('ec2 provider: a mismatch whose instance EC2 does not list yet', () => {
  it('is transient, and a later try finds the instance', async () => {
    ec2.on(RunInstancesCommand).rejects(awsError('IdempotentParameterMismatch', 'Arguments on this idempotent request are inconsistent'));
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({ Reservations: [] })
      .resolves({ Reservations: [{ Instances: [{ InstanceId: 'i-first', State: { Name: 'pending' } }] }] });
    const p = provider();
    const first = await p.startInstance(request()).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ProviderError);
    expect(first).toMatchObject({ transient: true });
    expect((first as ProviderError).message).toContain('does not list it yet');
    expect(await p.startInstance(request())).toMatchObject({ instanceId: 'i-first', machineId: '7' });
    // Both tries looked for the same token: no new attempt, no second instance.
    const lookedFor = ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input.Filters);
    expect(lookedFor).toEqual([
      [{ Name: 'client-token', Values: [clientToken('ctl-1', DEPLOYMENT, 'default', '7', 0)] }],
      [{ Name: 'client-token', Values: [clientToken('ctl-1', DEPLOYMENT, 'default', '7', 0)] }],
    ]);
  });
});

describe('ec2 provider: availability zones', () => {
  const SUBNETS = ['subnet-a', 'subnet-b', 'subnet-c'];
  const ZONES = { 'subnet-a': 'us-east-1a', 'subnet-b': 'us-east-1b', 'subnet-c': 'us-east-1c' };
  const spread = () => provider({ subnetIds: SUBNETS });
  const capacity = () =>
    awsError(
      'InsufficientInstanceCapacity',
      'We currently do not have sufficient t3a.micro capacity in the Availability Zone you requested.',
      500,
      'server',
    );
  const notOffered = () =>
    awsError('Unsupported', 'Your requested instance type (t3a.micro) is not supported in your requested Availability Zone.');
  const launchedIn = (zone: string) => ({
    Instances: [{ InstanceId: 'i-0abc', State: { Name: 'pending' as const }, Placement: { AvailabilityZone: zone } }],
  });
  const describesZones = () =>
    ec2.on(DescribeSubnetsCommand).resolves({
      Subnets: Object.entries(ZONES).map(([SubnetId, AvailabilityZone]) => ({ SubnetId, AvailabilityZone })),
    });

  it('starts consecutive machines in different zones, and a machine always in the same one first', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    for (const machineId of ['0', '1', '2', '3', '4', '1']) await spread().startInstance(request({ machineId }));
    expect(runInputs().map((i) => i.SubnetId)).toEqual(['subnet-a', 'subnet-b', 'subnet-c', 'subnet-a', 'subnet-b', 'subnet-b']);
  });

  it('puts the first zone of a machine whose id is not a number in a stable place too', async () => {
    ec2.on(RunInstancesCommand).resolves(launched);
    await spread().startInstance(request({ machineId: '0/lxd/1' }));
    await spread().startInstance(request({ machineId: '0/lxd/1' }));
    const [first, again] = runInputs().map((i) => i.SubnetId);
    expect(SUBNETS).toContain(first);
    expect(again).toBe(first);
  });

  const fallbacks: [string, () => Error][] = [
    ['no capacity for the type', capacity],
    ['the type is not offered there', notOffered],
  ];
  for (const [why, error] of fallbacks) {
    it(`launches in the next zone when the first refuses (${why}), with the same token`, async () => {
      ec2.on(RunInstancesCommand, { SubnetId: 'subnet-a' }).rejects(error());
      ec2.on(RunInstancesCommand, { SubnetId: 'subnet-b' }).resolves(launchedIn('us-east-1b'));
      const info = await spread().startInstance(request({ machineId: '0' }));
      expect(info.instanceId).toBe('i-0abc');
      expect(info.hardware).toContain('availability-zone=us-east-1b');
      const calls = runInputs();
      expect(calls.map((i) => i.SubnetId)).toEqual(['subnet-a', 'subnet-b']);
      expect(new Set(calls.map((i) => i.ClientToken))).toEqual(new Set([clientToken('ctl-1', DEPLOYMENT, 'default', '0', 0)]));
      // Everything but the subnet is the same launch.
      expect({ ...calls[0], SubnetId: undefined }).toEqual({ ...calls[1], SubnetId: undefined });
    });
  }

  it('a retry goes back to the first zone and finds the instance the fallback started there', async () => {
    // After the launch in subnet-b, EC2 has bound the token to that instance; the retry in
    // subnet-a (fresh user data) is refused as a mismatch and finds it by token.
    ec2.on(RunInstancesCommand).rejects(awsError('IdempotentParameterMismatch', 'Arguments on this idempotent request are inconsistent'));
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [launchedIn('us-east-1b')] });
    const info = await spread().startInstance(request({ machineId: '0' }));
    expect(info).toMatchObject({ instanceId: 'i-0abc' });
    expect(runInputs().map((i) => i.SubnetId)).toEqual(['subnet-a']);
  });

  it('does not try another zone for an error that is not about the zone', async () => {
    ec2.on(RunInstancesCommand).rejects(awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.', 403));
    await expect(spread().startInstance(request({ machineId: '0' }))).rejects.toMatchObject({ transient: false });
    expect(runInputs().map((i) => i.SubnetId)).toEqual(['subnet-a']);
  });

  it('with every zone full, reports a transient error naming the zones tried', async () => {
    ec2.on(RunInstancesCommand).rejects(capacity());
    describesZones();
    const err = await spread()
      .startInstance(request({ machineId: '1' }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ transient: true });
    expect((err as ProviderError).message).toBe(
      'cannot run instances: We currently do not have sufficient t3a.micro capacity in the Availability Zone you requested. ' +
        '(InsufficientInstanceCapacity); tried every availability zone of the machine network (' +
        'us-east-1b (subnet-b): InsufficientInstanceCapacity, us-east-1c (subnet-c): InsufficientInstanceCapacity, ' +
        'us-east-1a (subnet-a): InsufficientInstanceCapacity)',
    );
    expect(new Set(runInputs().map((i) => i.ClientToken)).size).toBe(1);
  });

  it('with the type offered in none of the zones, reports an error for the user to fix', async () => {
    ec2.on(RunInstancesCommand).rejects(notOffered());
    describesZones();
    const err = await spread()
      .startInstance(request({ machineId: '0' }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: false });
    expect((err as ProviderError).message).toContain('us-east-1a (subnet-a): Unsupported, us-east-1b (subnet-b): Unsupported');
  });

  it('with capacity short in one zone and the type missing in the others, reports a transient error', async () => {
    ec2.on(RunInstancesCommand).rejects(notOffered());
    ec2.on(RunInstancesCommand, { SubnetId: 'subnet-b' }).rejects(capacity());
    describesZones();
    await expect(spread().startInstance(request({ machineId: '0' }))).rejects.toMatchObject({ transient: true });
  });

  it('names the subnets when EC2 cannot say which zones they are in', async () => {
    ec2.on(RunInstancesCommand).rejects(capacity());
    ec2.on(DescribeSubnetsCommand).rejects(awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.', 403));
    const err = await spread()
      .startInstance(request({ machineId: '0' }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: true });
    expect((err as ProviderError).message).toContain(
      '(subnet-a: InsufficientInstanceCapacity, subnet-b: InsufficientInstanceCapacity, subnet-c: InsufficientInstanceCapacity)',
    );
  });
});

describe('ec2 provider: listInstances per deployment', () => {
  // EC2 applies DescribeInstances' tag filters; this stands in for it over a fixed set of instances.
  const instances = [
    {
      InstanceId: 'i-old',
      State: { Name: 'running' as const },
      Tags: [
        { Key: 'drover:controller', Value: 'ctl-1' },
        { Key: 'drover:deployment', Value: 'old' },
        { Key: 'drover:machine', Value: '0' },
      ],
    },
    {
      InstanceId: 'i-new',
      State: { Name: 'running' as const },
      Tags: [
        { Key: 'drover:controller', Value: 'ctl-1' },
        { Key: 'drover:deployment', Value: 'new' },
        { Key: 'drover:machine', Value: '0' },
      ],
    },
  ];
  beforeEach(() => {
    ec2.on(DescribeInstancesCommand).callsFake((input: { Filters?: { Name?: string; Values?: string[] }[] }) => {
      const tagFilters = (input.Filters ?? []).filter((f) => f.Name?.startsWith('tag:'));
      const matching = instances.filter((i) =>
        tagFilters.every((f) => i.Tags.some((t) => `tag:${t.Key}` === f.Name && f.Values?.includes(t.Value))),
      );
      return { Reservations: [{ Instances: matching }] };
    });
  });

  for (const [deployment, expected] of [
    ['old', 'i-old'],
    ['new', 'i-new'],
  ] as const) {
    it(`lists only the ${deployment} deployment's instance of machine 0`, async () => {
      expect((await provider({ deploymentId: deployment }).listInstances('ctl-1')).map((i) => i.instanceId)).toEqual([expected]);
    });
  }
});
