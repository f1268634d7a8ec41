// What deleting a controller's stack must do before CloudFormation can remove its network: stop
// every instance this deployment started and wait until they are gone (a security group or
// subnet still used by an instance's network interface cannot be deleted), then delete what the
// provisioner made at run time and CloudFormation does not know: the applications' security
// groups (shared/provider/ec2/firewall.ts; the VPC cannot go while they exist) and the machine
// queues.
// Each step is safe to repeat: CloudFormation retries a failed delete, and a user may too.
import { DescribeInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { DeleteQueueCommand, ListQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isQueueMissing } from '../messaging/machine-queues.js';
import { machineQueuePrefix } from '../messaging/queue-names.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG } from '../provider/ec2/tags.js';
import { terminateInstances } from '../provider/ec2/terminate.js';
import { deleteApplicationGroup, describeApplicationGroups } from '../provider/ec2/application-groups.js';

/**
 * Tries at deleting a group that a terminated instance's network interface still holds: EC2
 * releases it a little after the instance is gone. With the 5 s pause, about a minute.
 */
const GROUP_DELETE_ATTEMPTS = 12;

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
  /** The applications' security groups deleted (ids). */
  groupsDeleted: string[];
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
  const groupsDeleted = await deleteApplicationGroups(deps, pause, now);
  const queuesDeleted: string[] = [];
  for (const url of await machineQueueUrls(deps)) {
    try {
      await deps.sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    } catch (e) {
      if (!isQueueMissing(e)) throw e;
    }
    queuesDeleted.push(url);
  }
  return { terminated: first.map((i) => i.id), groupsDeleted, queuesDeleted };
}

/**
 * Deletes this deployment's application groups, trying again those still in use
 * (DependencyViolation) a bounded number of times; one already gone is deleted.
 */
async function deleteApplicationGroups(deps: TearDownDeps, pause: () => Promise<void>, now: () => number): Promise<string[]> {
  const groups = await describeApplicationGroups(deps.ec2, deps.controllerId, [
    { Name: `tag:${DEPLOYMENT_TAG}`, Values: [deps.deploymentId] },
  ]);
  let left = groups.map((g) => g.groupId);
  for (let attempt = 1; ; attempt++) {
    const inUse: string[] = [];
    for (const groupId of left) if ((await deleteApplicationGroup(deps.ec2, groupId)) === 'in-use') inUse.push(groupId);
    left = inUse;
    if (left.length === 0) return groups.map((g) => g.groupId);
    if (attempt >= GROUP_DELETE_ATTEMPTS || now() > deps.deadline) {
      throw new Error(
        `${left.length} security groups of exposed applications are still in use (${left.join(', ')}); ` +
          'delete the stack again once the network interfaces holding them are gone',
      );
    }
    await pause();
  }
}
