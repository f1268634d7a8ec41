// What deleting a controller's stack must do before CloudFormation can remove its network: stop
// every instance this deployment started and wait until they are gone (a security group or
// subnet still used by an instance's network interface cannot be deleted), and delete the
// machine queues, which the provisioner made at run time and CloudFormation does not know.
// Each step is safe to repeat: CloudFormation retries a failed delete, and a user may too.
import { DescribeInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { DeleteQueueCommand, ListQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isQueueMissing } from '../messaging/machine-queues.js';
import { machineQueuePrefix } from '../messaging/queue-names.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG } from '../provider/ec2/tags.js';
import { terminateInstances } from '../provider/ec2/terminate.js';

/** Every state but `terminated`: an instance in any of them still holds its network interface. */
const NOT_TERMINATED = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];

export interface TearDownDeps {
  ec2: EC2Client;
  sqs: SQSClient;
  controllerId: string;
  deploymentId: string;
  /** Give up waiting for instances to terminate at this time (ms since the epoch). */
  deadline: number;
  /** Between two looks at instances still terminating. */
  pause?: () => Promise<void>;
  now?: () => number;
}

export interface TearDownResult {
  terminated: string[];
  queuesDeleted: string[];
}

async function instancesLeft(deps: TearDownDeps): Promise<{ id: string; state: string }[]> {
  const found: { id: string; state: string }[] = [];
  let nextToken: string | undefined;
  do {
    const page = await deps.ec2.send(
      new DescribeInstancesCommand({
        Filters: [
          { Name: `tag:${CONTROLLER_TAG}`, Values: [deps.controllerId] },
          { Name: `tag:${DEPLOYMENT_TAG}`, Values: [deps.deploymentId] },
          { Name: 'instance-state-name', Values: NOT_TERMINATED },
        ],
        ...(nextToken ? { NextToken: nextToken } : {}),
      }),
    );
    for (const r of page.Reservations ?? [])
      for (const i of r.Instances ?? []) if (i.InstanceId) found.push({ id: i.InstanceId, state: i.State?.Name ?? '' });
    nextToken = page.NextToken;
  } while (nextToken);
  return found;
}

async function machineQueueUrls(deps: TearDownDeps): Promise<string[]> {
  const urls: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await deps.sqs.send(
      new ListQueuesCommand({
        QueueNamePrefix: machineQueuePrefix(deps.controllerId),
        MaxResults: 1000,
        ...(nextToken ? { NextToken: nextToken } : {}),
      }),
    );
    urls.push(...(page.QueueUrls ?? []));
    nextToken = page.NextToken;
  } while (nextToken);
  return urls;
}

export async function tearDownController(deps: TearDownDeps): Promise<TearDownResult> {
  const now = deps.now ?? Date.now;
  const pause = deps.pause ?? (() => new Promise<void>((r) => setTimeout(r, 5_000)));
  const first = await instancesLeft(deps);
  // Already shutting down: terminating them again changes nothing.
  const toTerminate = first.filter((i) => i.state !== 'shutting-down').map((i) => i.id);
  // One may end between the listing and this call: an instance already gone is not an error.
  await terminateInstances(deps.ec2, toTerminate);
  for (let left = first; left.length > 0; left = await instancesLeft(deps)) {
    if (now() > deps.deadline) {
      throw new Error(
        `${left.length} instances still terminating (${left.map((i) => i.id).join(', ')}); delete the stack again to keep waiting`,
      );
    }
    await pause();
  }
  const queuesDeleted: string[] = [];
  for (const url of await machineQueueUrls(deps)) {
    try {
      await deps.sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    } catch (e) {
      if (!isQueueMissing(e)) throw e;
    }
    queuesDeleted.push(url);
  }
  return { terminated: first.map((i) => i.id), queuesDeleted };
}
