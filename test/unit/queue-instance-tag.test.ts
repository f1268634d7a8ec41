// The ARN a machine queue is tagged with must be exactly what `${ec2:SourceInstanceARN}` gives for
// that instance's requests (arn:<partition>:ec2:<region>:<account>:instance/<id>), or the agent
// could not receive its own hints.
import { describe, expect, it } from 'vitest';
import { instanceArnFor } from '#shared/messaging/queue-instance-tag.js';

describe("a machine queue's instance tag", () => {
  it('names the instance in the queue’s region and account, in the region’s partition', () => {
    const cases: [string, string, string][] = [
      [
        'https://sqs.eu-west-1.amazonaws.com/123456789012/drover-main-m-3',
        'eu-west-1',
        'arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc',
      ],
      [
        'https://sqs.cn-north-1.amazonaws.com.cn/210987654321/drover-main-m-3',
        'cn-north-1',
        'arn:aws-cn:ec2:cn-north-1:210987654321:instance/i-0abc',
      ],
      [
        'https://sqs.us-gov-west-1.amazonaws.com/111122223333/drover-main-m-3',
        'us-gov-west-1',
        'arn:aws-us-gov:ec2:us-gov-west-1:111122223333:instance/i-0abc',
      ],
    ];
    for (const [url, region, arn] of cases) expect(instanceArnFor(url, region, 'i-0abc')).toBe(arn);
  });
});
