// Which AWS partition a region is in, and the DNS suffix of its endpoints: what code that builds
// an ARN or an endpoint by hand must use, so that a controller deployed in China or GovCloud
// (cdk.json's target partitions; the CDK app builds every ARN from AWS::Partition) names its own
// resources. https://docs.aws.amazon.com/whitepapers/latest/aws-fault-isolation-boundaries/partitions.html

/** The partition of a region: the second field of an ARN. */
export function partitionOf(region: string): 'aws' | 'aws-cn' | 'aws-us-gov' {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/** The DNS suffix of a region's endpoints (s3.<region>.<suffix>, sqs.<region>.<suffix>). */
export function dnsSuffixOf(region: string): string {
  return partitionOf(region) === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
}
