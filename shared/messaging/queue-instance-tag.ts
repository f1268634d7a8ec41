// Which instance's agent may receive from a machine queue. Every agent has the same instance
// role, so the role alone cannot tell one machine's queue from another's; each queue is tagged
// with the ARN of its machine's instance, and the role may receive only from a queue whose tag
// is the caller's own instance (the `${ec2:SourceInstanceARN}` policy variable, set on requests
// signed with an instance role's credentials; infra/machines.ts). SQS authorizes by tags:
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-abac.html
import { TagQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { partitionOf } from '../aws/partition.js';
import { isQueueMissing } from './machine-queues.js';
import { getMachine } from '../state/engine/reads.js';
import type { Store } from '../state/engine/store.js';

export const INSTANCE_TAG = 'drover:instance';

/**
 * The instance's ARN, in the queue's region and account: a queue URL is
 * `https://sqs.<region>.<dns suffix>/<account>/<name>`, and machines run where their queues are.
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

/**
 * Binds a machine queue the `changes` function had to re-create to the instance its machine
 * records, so that the agent receives its hints at once: the provisioner's reconcile leaves a
 * running machine alone, and without this the agent would wait for its next resync (20 minutes).
 * A machine not yet running has no instance: the provisioner binds its queue when it starts one.
 */
export async function admitRecordedInstance(store: Store, sqs: SQSClient, machineId: string, queueUrl: string): Promise<void> {
  const instanceId = (await getMachine(store, machineId))?.instanceId;
  if (instanceId) await admitOnlyInstance(sqs, queueUrl, instanceId);
}
