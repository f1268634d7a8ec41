// The provisioner Lambda's wiring from its environment: with the agent bundle's bucket and key
// (what the CDK stack passes), each instance's user data carries a fresh presigned URL, since the
// bundle is a private asset an instance cannot fetch with plain curl otherwise; the deployment id
// and the subnets reach the ec2 provider, and the machines' VPC its firewall.
import {
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  EC2ServiceException,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { provisionerDepsFromEnv } from '../../functions/provisioner/env.js';
import { clientToken } from '#shared/provider/ec2/ec2-provider.js';
import { readStorageClaims } from '#shared/provisioner/storage-claims.js';

const ec2 = mockClient(EC2Client);
const saved = { ...process.env };
beforeEach(() => {
  ec2.reset();
  // The presigner finds credentials in the standard chain, as on Lambda.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
  ec2.on(DescribeImagesCommand).resolves({ Images: [{ ImageId: 'ami-1', CreationDate: '2026-01-01T00:00:00Z', Name: 'ubuntu' }] });
  ec2.on(RunInstancesCommand).resolves({ Instances: [{ InstanceId: 'i-1', State: { Name: 'pending' } }] });
});
afterEach(() => {
  process.env = { ...saved };
});

const ENV = {
  TABLE_NAME: 't',
  CONTROLLER_ID: 'ctl',
  DEPLOYMENT_ID: 'deployment-1',
  API_URL: 'https://api.example.com',
  AGENT_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString('base64url'),
  AGENT_BUNDLE_URL: 'https://bundle-bucket.s3.amazonaws.com/agent.tgz',
  AWS_REGION: 'us-east-1',
};

const start = (env: Record<string, string | undefined>, machineId = '3') =>
  provisionerDepsFromEnv(env).provider.startInstance({
    controllerId: 'ctl',
    model: 'default',
    machineId,
    attempt: 0,
    series: 'jammy',
    constraints: {},
    agent: { apiUrl: 'https://api.example.com', credential: 'c', queueUrl: 'https://sqs.example/q' },
  });
const runInputs = () => ec2.commandCalls(RunInstancesCommand).map((c) => c.args[0].input);

describe('provisioner environment', () => {
  it("has a firewall that makes groups in VPC_ID and never changes SECURITY_GROUP_IDS' groups; none without a VPC", async () => {
    ec2.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: [] });
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    const firewall = provisionerDepsFromEnv({ ...ENV, VPC_ID: 'vpc-9', SECURITY_GROUP_IDS: 'sg-shared' }).provider.firewall!;
    await firewall.applyFirewall('ctl', { groups: [], instances: [] });
    expect(ec2.commandCalls(DescribeSecurityGroupsCommand)[0]!.args[0].input.Filters).toContainEqual({ Name: 'vpc-id', Values: ['vpc-9'] });
    expect(provisionerDepsFromEnv(ENV).provider.firewall).toBeUndefined();
  });

  it('has instances read the agent bundle from its bucket with their own role when its bucket and key are set', async () => {
    await start({ ...ENV, AGENT_BUNDLE_BUCKET: 'bundle-bucket', AGENT_BUNDLE_KEY: 'assets/agent.tgz' });
    const userData = Buffer.from(runInputs()[0]!.UserData ?? '', 'base64').toString('utf8');
    expect(userData).toContain("s3_get 'bundle-bucket' 'assets/agent.tgz' 'us-east-1' \"$work/agent.tgz\"");
    // Nothing signed by the provisioner: no signature, session or expiry that a retry would change.
    expect(userData).not.toMatch(/X-Amz-(Signature|Security-Token|Credential)/);
  });

  it('puts the deployment id in the token and the tags, and lists by it', async () => {
    await start(ENV);
    const input = runInputs()[0]!;
    expect(input.ClientToken).toBe(clientToken('ctl', 'deployment-1', 'default', '3', 0));
    expect(input.TagSpecifications?.[0]?.Tags).toContainEqual({ Key: 'drover:deployment', Value: 'deployment-1' });
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    await provisionerDepsFromEnv(ENV).provider.listInstances('ctl');
    expect(ec2.commandCalls(DescribeInstancesCommand)[0]!.args[0].input.Filters).toContainEqual({
      Name: 'tag:drover:deployment',
      Values: ['deployment-1'],
    });
  });

  it('refuses to start without a deployment id, naming the variable', () => {
    expect(() => provisionerDepsFromEnv({ ...ENV, DEPLOYMENT_ID: undefined })).toThrow(
      `the provisioner needs DEPLOYMENT_ID in its environment`,
    );
  });

  it('spreads machines over the comma-separated subnets, falling back to the next', async () => {
    const env = { ...ENV, SUBNET_IDS: 'subnet-a, subnet-b,,subnet-c' };
    ec2.on(RunInstancesCommand, { SubnetId: 'subnet-b' }).rejects(
      new EC2ServiceException({
        name: 'InsufficientInstanceCapacity',
        message: 'no capacity',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
      }),
    );
    await start(env, '0');
    await start(env, '1');
    expect(runInputs().map((i) => i.SubnetId)).toEqual(['subnet-a', 'subnet-b', 'subnet-c']);
  });

  it('leaves the subnet to EC2 when none is given', async () => {
    await start(ENV);
    expect(runInputs()[0]).not.toHaveProperty('SubnetId');
  });

  it("reads every model's storage for the volume reaper: EC2 has volumes", () => {
    const deps = provisionerDepsFromEnv(ENV);
    expect(deps.provider.volumes).toBeDefined();
    expect(deps.storageClaims).toBe(readStorageClaims);
  });
});
