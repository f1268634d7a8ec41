// The provisioner Lambda's wiring from its environment: with the agent bundle's bucket and key
// (what the CDK stack passes), each instance's user data carries a fresh presigned URL, since the
// bundle is a private asset an instance cannot fetch with plain curl otherwise.
import { DescribeImagesCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { provisionerDepsFromEnv } from '../../functions/provisioner/env.js';

const ec2 = mockClient(EC2Client);
const saved = { ...process.env };
beforeEach(() => {
  ec2.reset();
  // The presigner finds credentials in the standard chain, as on Lambda.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
});
afterEach(() => {
  process.env = { ...saved };
});

describe('provisioner environment', () => {
  it('gives instances a presigned URL for the agent bundle when its bucket and key are set', async () => {
    ec2.on(DescribeImagesCommand).resolves({ Images: [{ ImageId: 'ami-1', CreationDate: '2026-01-01T00:00:00Z', Name: 'ubuntu' }] });
    ec2.on(RunInstancesCommand).resolves({ Instances: [{ InstanceId: 'i-1', State: { Name: 'pending' } }] });
    const deps = provisionerDepsFromEnv({
      TABLE_NAME: 't',
      CONTROLLER_ID: 'ctl',
      API_URL: 'https://api.example.com',
      AGENT_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString('base64url'),
      AGENT_BUNDLE_URL: 'https://bundle-bucket.s3.amazonaws.com/agent.tgz',
      AGENT_BUNDLE_BUCKET: 'bundle-bucket',
      AGENT_BUNDLE_KEY: 'assets/agent.tgz',
      AWS_REGION: 'us-east-1',
    });
    await deps.provider.startInstance({
      controllerId: 'ctl',
      machineId: '3',
      attempt: 0,
      series: 'jammy',
      constraints: {},
      agent: { apiUrl: 'https://api.example.com', credential: 'c', queueUrl: 'https://sqs.example/q' },
    });
    const userData = Buffer.from(ec2.commandCalls(RunInstancesCommand)[0]!.args[0].input.UserData ?? '', 'base64').toString('utf8');
    expect(userData).toMatch(
      /https:\/\/bundle-bucket\.s3\.us-east-1\.amazonaws\.com\/assets\/agent\.tgz\?[^'"\s]*X-Amz-Signature=[0-9a-f]{64}/,
    );
  });
});
