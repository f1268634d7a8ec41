// ARNs and endpoints built by hand follow the region's partition (shared/aws/partition.ts): the
// instance ARN a machine queue is tagged with (test/unit/queue-instance-tag.test.ts), presigned
// charm URLs, and the S3 address an instance downloads its agent from at boot.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { dnsSuffixOf, partitionOf } from '#shared/aws/partition.js';
import { presignedS3Url } from '#shared/aws/presigned-s3-url.js';
import { S3_GET_PROGRAM } from '#shared/provider/ec2/s3-get-script.js';

const REGIONS: [string, string, string][] = [
  ['eu-west-1', 'aws', 'amazonaws.com'],
  ['us-east-1', 'aws', 'amazonaws.com'],
  ['cn-north-1', 'aws-cn', 'amazonaws.com.cn'],
  ['cn-northwest-1', 'aws-cn', 'amazonaws.com.cn'],
  ['us-gov-west-1', 'aws-us-gov', 'amazonaws.com'],
];

describe('partitions', () => {
  it('puts each region in its partition, with its DNS suffix', () => {
    for (const [region, partition, suffix] of REGIONS) {
      expect(partitionOf(region), region).toBe(partition);
      expect(dnsSuffixOf(region), region).toBe(suffix);
    }
  });

  it("presigns charm URLs on the region's own S3 endpoint", async () => {
    for (const [region, , suffix] of REGIONS) {
      const url = new URL(
        await presignedS3Url({
          bucket: 'charms',
          key: 'charms/a.tar.gz',
          region,
          credentials: async () => ({ accessKeyId: 'A', secretAccessKey: 'S' }),
        })(),
      );
      expect(url.host, region).toBe(`charms.s3.${region}.${suffix}`);
    }
  });

  it("has the instance's boot download use the same DNS suffix (its Python, run for each region)", () => {
    const rule = S3_GET_PROGRAM.split('\n').find((line) => line.startsWith('suffix = '));
    expect(rule).toBeDefined();
    for (const [region, , suffix] of REGIONS) {
      const run = spawnSync('python3', ['-c', `region = ${JSON.stringify(region)}\n${rule}\nprint(suffix)`], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim(), region).toBe(suffix);
    }
  });
});
