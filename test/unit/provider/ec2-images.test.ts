import { describe, it, expect, beforeEach } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DescribeImagesCommand, EC2Client, EC2ServiceException } from '@aws-sdk/client-ec2';
import { ProviderError } from '#shared/provider/provider.js';
import { canonicalSsmParameter, CANONICAL_OWNER_ID, describeImagesFinder } from '#shared/provider/ec2/images.js';

const ec2 = mockClient(EC2Client);
const client = new EC2Client({ region: 'us-east-1' });

beforeEach(() => {
  ec2.reset();
});

describe('images: DescribeImages lookup', () => {
  it("asks for Canonical's HVM EBS images of exactly the series, version and arch", async () => {
    ec2.on(DescribeImagesCommand).resolves({ Images: [{ ImageId: 'ami-1', CreationDate: '2024-01-01T00:00:00.000Z' }] });
    await describeImagesFinder(client, 'us-east-1')('jammy', 'arm64');
    expect(ec2.commandCalls(DescribeImagesCommand).map((c) => c.args[0].input)).toEqual([
      {
        Owners: [CANONICAL_OWNER_ID],
        Filters: [
          { Name: 'name', Values: ['ubuntu/images/hvm-ssd*/ubuntu-jammy-22.04-arm64-server-*'] },
          { Name: 'architecture', Values: ['arm64'] },
          { Name: 'state', Values: ['available'] },
          { Name: 'root-device-type', Values: ['ebs'] },
          { Name: 'virtualization-type', Values: ['hvm'] },
        ],
      },
    ]);
  });

  it('chooses the newest image, across pages', async () => {
    ec2
      .on(DescribeImagesCommand)
      .resolvesOnce({
        Images: [
          { ImageId: 'ami-old', CreationDate: '2024-01-01T00:00:00.000Z' },
          { ImageId: 'ami-mid', CreationDate: '2024-03-01T00:00:00.000Z' },
        ],
        NextToken: 'p2',
      })
      .resolvesOnce({ Images: [{ ImageId: 'ami-new', CreationDate: '2024-05-01T00:00:00.000Z' }] });
    expect(await describeImagesFinder(client, 'us-east-1')('noble', 'amd64')).toBe('ami-new');
    expect(ec2.commandCalls(DescribeImagesCommand)[1]?.args[0].input.NextToken).toBe('p2');
    expect(ec2.commandCalls(DescribeImagesCommand)[0]?.args[0].input.Filters?.[1]).toEqual({
      Name: 'architecture',
      Values: ['x86_64'],
    });
  });

  it('asks once an hour per series and arch', async () => {
    let clock = 0;
    ec2.on(DescribeImagesCommand).resolves({ Images: [{ ImageId: 'ami-1', CreationDate: '2024-01-01' }] });
    const find = describeImagesFinder(client, 'us-east-1', () => clock);
    await find('jammy', 'amd64');
    await find('jammy', 'amd64');
    expect(ec2.commandCalls(DescribeImagesCommand)).toHaveLength(1);
    await find('focal', 'amd64');
    expect(ec2.commandCalls(DescribeImagesCommand)).toHaveLength(2);
    clock = 60 * 60 * 1000;
    await find('jammy', 'amd64');
    expect(ec2.commandCalls(DescribeImagesCommand)).toHaveLength(3);
  });

  it("refuses an unknown series with Juju's message, without asking EC2", async () => {
    await expect(describeImagesFinder(client, 'us-east-1')('precise', 'amd64')).rejects.toThrow(
      'no metadata for "precise" images in us-east-1 with arch amd64',
    );
    expect(ec2.commandCalls(DescribeImagesCommand)).toHaveLength(0);
  });

  it('says there is no image when Canonical has none for the series and arch', async () => {
    ec2.on(DescribeImagesCommand).resolves({ Images: [] });
    const err = await describeImagesFinder(client, 'eu-west-2')('focal', 'arm64').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toBe('no metadata for "focal" images in eu-west-2 with arch arm64');
    expect((err as ProviderError).transient).toBe(false);
  });

  it('reports a throttled lookup as transient', async () => {
    ec2.on(DescribeImagesCommand).rejects(
      new EC2ServiceException({
        name: 'RequestLimitExceeded',
        $fault: 'client',
        $metadata: { httpStatusCode: 503 },
        message: 'Request limit exceeded.',
      }),
    );
    const err = await describeImagesFinder(client, 'us-east-1')('jammy', 'amd64').catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: true, message: 'cannot find an image: Request limit exceeded. (RequestLimitExceeded)' });
  });
});

describe('images: SSM parameters Canonical publishes', () => {
  it.each([
    ['jammy', 'amd64', '/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp3/ami-id'],
    ['noble', 'arm64', '/aws/service/canonical/ubuntu/server/24.04/stable/current/arm64/hvm/ebs-gp3/ami-id'],
    ['focal', 'amd64', '/aws/service/canonical/ubuntu/server/20.04/stable/current/amd64/hvm/ebs-gp2/ami-id'],
  ])('%s/%s → %s', (series, arch, parameter) => {
    expect(canonicalSsmParameter(series, arch)).toBe(parameter);
  });

  it('has none for an unknown series', () => {
    expect(canonicalSsmParameter('trusty', 'amd64')).toBeUndefined();
  });
});
