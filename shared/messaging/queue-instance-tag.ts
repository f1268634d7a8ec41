// Which instance's agent may receive from a machine queue. Every agent has the same instance
// role, so the role alone cannot tell one machine's queue from another's; each queue is tagged
// with the ARN of its machine's instance, and the role may receive only from a queue whose tag
// is the caller's own instance (the `${ec2:SourceInstanceARN}` policy variable, set on requests
// signed with an instance role's credentials; infra/machines.ts). SQS authorizes by tags:
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-abac.html
import { TagQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isQueueMissing } from './machine-queues.js';

export const INSTANCE_TAG = 'drover:instance';

/** The partition a region is in (the ARN's second field). */
const partitionOf = (region: string) => (region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws');

/**
 * The instance's ARN, in the queue's region and account: a queue URL is
 * `https://sqs.<region>.amazonaws.com/<account>/<name>`, and machines run where their queues are.
 */
export function instanceArnFor(queueUrl: string, region: string, instanceId: string): string {
  const account = new URL(queueUrl).pathname.split('/')[1] ?? '';
  return `arn:${partitionOf(region)}:ec2:${region}:${account}:instance/${instanceId}`;
}

/**
 * Tags the machine's queue with its instance: from then on only that instance's agent receives
 * from it. Safe to repeat. A queue gone meanwhile belonged to a machine being removed (removal
 * deletes it): there is nothing to bind, and recording the instance will find the machine gone.
 */
export async function admitOnlyInstance(sqs: SQSClient, queueUrl: string, instanceId: string): Promise<void> {
  const region = await sqs.config.region();
  try {
    await sqs.send(new TagQueueCommand({ QueueUrl: queueUrl, Tags: { [INSTANCE_TAG]: instanceArnFor(queueUrl, region, instanceId) } }));
  } catch (e) {
    if (!isQueueMissing(e)) throw e;
  }
}
