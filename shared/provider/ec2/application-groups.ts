// The per-application security groups of a controller: their name, their tags, and finding,
// creating and deleting them, each safe to repeat and to run twice at once. Used by the firewall
// (firewall.ts) and by the stack's tear-down (shared/provisioner/tear-down.ts).
//
// A group is found by its tags, never by a name or an id kept anywhere: the controller's tag says
// it is ours, the application tag which application it serves. The machines' shared group
// (infra/machines.ts) carries no application tag, so nothing here can find it, let alone change it.
import {
  CreateSecurityGroupCommand,
  DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  type EC2Client,
  type Filter,
  type SecurityGroup,
} from '@aws-sdk/client-ec2';
import { ProviderError } from '../provider.js';
import { awsErrorCode, toProviderError } from './errors.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG } from './tags.js';

/** Which application a group serves. */
export const APPLICATION_TAG = 'drover:application';

export const applicationGroupName = (controllerId: string, application: string) => `drover-${controllerId}-${application}`;

export interface ApplicationGroup {
  application: string;
  groupId: string;
  group: SecurityGroup;
}

const tagValue = (group: SecurityGroup, key: string) => group.Tags?.find((t) => t.Key === key)?.Value;

/** Every group of the controller matching `filters` that names an application. */
export async function describeApplicationGroups(client: EC2Client, controllerId: string, filters: Filter[]): Promise<ApplicationGroup[]> {
  const found: ApplicationGroup[] = [];
  let nextToken: string | undefined;
  try {
    do {
      const page = await client.send(
        new DescribeSecurityGroupsCommand({
          Filters: [{ Name: `tag:${CONTROLLER_TAG}`, Values: [controllerId] }, { Name: 'tag-key', Values: [APPLICATION_TAG] }, ...filters],
          MaxResults: 1000,
          ...(nextToken ? { NextToken: nextToken } : {}),
        }),
      );
      for (const group of page.SecurityGroups ?? []) {
        const application = tagValue(group, APPLICATION_TAG);
        if (group.GroupId && application) found.push({ application, groupId: group.GroupId, group });
      }
      nextToken = page.NextToken;
    } while (nextToken);
  } catch (e) {
    throw toProviderError(e, 'cannot list security groups');
  }
  return found;
}

export interface CreateGroupOptions {
  client: EC2Client;
  controllerId: string;
  deploymentId: string;
  vpcId: string;
  application: string;
}

/**
 * Creates the application's group, tagged in the same call (so it is never untagged, and IAM can
 * require the tags), with no ingress. Another run may have created it meanwhile
 * (InvalidGroup.Duplicate): then that group is the answer, once it is shown to be ours.
 */
export async function createApplicationGroup(options: CreateGroupOptions): Promise<string> {
  const { client, controllerId, deploymentId, vpcId, application } = options;
  const name = applicationGroupName(controllerId, application);
  try {
    const created = await client.send(
      new CreateSecurityGroupCommand({
        GroupName: name,
        Description: `drover ${controllerId}: ingress of application ${application} while it is exposed`,
        VpcId: vpcId,
        TagSpecifications: [
          {
            ResourceType: 'security-group',
            Tags: [
              { Key: CONTROLLER_TAG, Value: controllerId },
              { Key: DEPLOYMENT_TAG, Value: deploymentId },
              { Key: APPLICATION_TAG, Value: application },
              { Key: 'Name', Value: name },
            ],
          },
        ],
      }),
    );
    if (!created.GroupId) throw new ProviderError(`cannot create security group ${name}: EC2 returned no group id`, true);
    return created.GroupId;
  } catch (e) {
    if (awsErrorCode(e) !== 'InvalidGroup.Duplicate') throw toProviderError(e, `cannot create security group ${name}`);
    return findExisting(options, name);
  }
}

async function findExisting(options: CreateGroupOptions, name: string): Promise<string> {
  let page;
  try {
    page = await options.client.send(
      new DescribeSecurityGroupsCommand({
        Filters: [
          { Name: 'group-name', Values: [name] },
          { Name: 'vpc-id', Values: [options.vpcId] },
        ],
      }),
    );
  } catch (e) {
    throw toProviderError(e, `cannot find security group ${name}`);
  }
  const group = page.SecurityGroups?.[0];
  // DescribeSecurityGroups is eventually consistent: a group another run just made may not show yet.
  if (!group?.GroupId) throw new ProviderError(`security group ${name} exists but is not listed yet; will retry`, true);
  if (tagValue(group, CONTROLLER_TAG) !== options.controllerId || tagValue(group, APPLICATION_TAG) !== options.application) {
    throw new ProviderError(
      `security group ${name} (${group.GroupId}) in ${options.vpcId} is not this controller's group of application ${options.application}; ` +
        'delete or rename it so drover can create its own',
      false,
    );
  }
  return group.GroupId;
}

/**
 * Deletes a group. One already gone is deleted; one still attached to an instance (terminating
 * instances hold theirs until they are gone) answers `in-use`, for the caller to try again later.
 */
export async function deleteApplicationGroup(client: EC2Client, groupId: string): Promise<'deleted' | 'in-use'> {
  try {
    await client.send(new DeleteSecurityGroupCommand({ GroupId: groupId }));
    return 'deleted';
  } catch (e) {
    const code = awsErrorCode(e);
    if (code === 'InvalidGroup.NotFound') return 'deleted';
    if (code === 'DependencyViolation') return 'in-use';
    throw toProviderError(e, `cannot delete security group ${groupId}`);
  }
}
