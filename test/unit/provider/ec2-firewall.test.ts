// The ec2 firewall (shared/provider/ec2/firewall.ts) against a mocked EC2: what it sends to make
// each application's group, its rules and the instances' groups match the decision, what it takes
// as "already so", and that the machines' shared group is never changed.
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DeleteSecurityGroupCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  EC2ServiceException,
  ModifyInstanceAttributeCommand,
  RevokeSecurityGroupIngressCommand,
  type DescribeSecurityGroupsCommandInput,
  type IpPermission,
  type SecurityGroup,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DesiredFirewall } from '#shared/domain/firewall.js';
import { parsePortRange } from '#shared/domain/port-ranges.js';
import { Ec2Provider } from '#shared/provider/ec2/ec2-provider.js';
import { Ec2Firewall } from '#shared/provider/ec2/firewall.js';

const ec2 = mockClient(EC2Client);
const client = new EC2Client({ region: 'us-east-1' });
const SHARED = 'sg-shared';
const VPC = 'vpc-1';
const firewall = new Ec2Firewall({ client, deploymentId: 'dep-1', vpcId: VPC, sharedGroupIds: [SHARED] });

const awsError = (name: string) =>
  new EC2ServiceException({ name, message: `${name} says EC2`, $fault: 'client', $metadata: { httpStatusCode: 400 } });

const tcp = (port: number): IpPermission => ({ IpProtocol: 'tcp', FromPort: port, ToPort: port, IpRanges: [{ CidrIp: '0.0.0.0/0' }] });

const group = (application: string, groupId: string, ingress: IpPermission[] = []): SecurityGroup => ({
  GroupId: groupId,
  GroupName: `drover-ctl-${application}`,
  VpcId: VPC,
  IpPermissions: ingress,
  Tags: [
    { Key: 'drover:controller', Value: 'ctl' },
    { Key: 'drover:application', Value: application },
  ],
});

/** EC2's groups: the controller's listing, and a lookup by name. */
function groupsAre(groups: SecurityGroup[]) {
  ec2.on(DescribeSecurityGroupsCommand).callsFake((input: DescribeSecurityGroupsCommandInput) => {
    const byName = input.Filters?.find((f) => f.Name === 'group-name')?.Values?.[0];
    return { SecurityGroups: byName ? groups.filter((g) => g.GroupName === byName) : groups };
  });
}

function instancesAre(...instances: [string, string[]][]) {
  ec2.on(DescribeInstancesCommand).resolves({
    Reservations: [
      { Instances: instances.map(([id, groups]) => ({ InstanceId: id, SecurityGroups: groups.map((GroupId) => ({ GroupId })) })) },
    ],
  });
}

// Any command class: only the inputs it was sent with are read.
const inputs = (command: unknown) => ec2.commandCalls(command as never).map((c) => (c.args[0] as unknown as { input: unknown }).input);

const exposedWeb = (...ports: string[]): DesiredFirewall => ({
  groups: [{ application: 'web', ingress: ports.map(parsePortRange) }],
  instances: [{ instanceId: 'i-1', applications: ['web'] }],
});

/** No call that could change the shared group names it. */
function sharedGroupUntouched() {
  for (const command of [AuthorizeSecurityGroupIngressCommand, RevokeSecurityGroupIngressCommand, DeleteSecurityGroupCommand])
    for (const input of inputs(command)) expect((input as { GroupId: string }).GroupId).not.toBe(SHARED);
  for (const input of inputs(ModifyInstanceAttributeCommand)) expect((input as { Groups: string[] }).Groups).toContain(SHARED);
}

beforeEach(() => {
  ec2.reset();
  ec2.on(CreateSecurityGroupCommand).resolves({ GroupId: 'sg-web' });
  ec2.on(AuthorizeSecurityGroupIngressCommand).resolves({});
  ec2.on(RevokeSecurityGroupIngressCommand).resolves({});
  ec2.on(ModifyInstanceAttributeCommand).resolves({});
  ec2.on(DeleteSecurityGroupCommand).resolves({});
});

describe('ec2 firewall: exposing', () => {
  it('creates the missing group once, tagged, in the VPC, opens its ports and attaches it beside the shared group', async () => {
    groupsAre([]);
    instancesAre(['i-1', [SHARED]], ['i-2', [SHARED]]);
    const report = await firewall.applyFirewall('ctl', exposedWeb('80/tcp', '8000-8080/udp'));

    expect(inputs(CreateSecurityGroupCommand)).toEqual([
      {
        GroupName: 'drover-ctl-web',
        Description: 'drover ctl: ingress of application web while it is exposed',
        VpcId: VPC,
        TagSpecifications: [
          {
            ResourceType: 'security-group',
            Tags: [
              { Key: 'drover:controller', Value: 'ctl' },
              { Key: 'drover:deployment', Value: 'dep-1' },
              { Key: 'drover:application', Value: 'web' },
              { Key: 'Name', Value: 'drover-ctl-web' },
            ],
          },
        ],
      },
    ]);
    expect(inputs(AuthorizeSecurityGroupIngressCommand)).toEqual([
      { GroupId: 'sg-web', IpPermissions: [tcp(80)] },
      { GroupId: 'sg-web', IpPermissions: [{ IpProtocol: 'udp', FromPort: 8000, ToPort: 8080, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }] },
    ]);
    // Only the instance hosting a unit of web; the other keeps its groups.
    expect(inputs(ModifyInstanceAttributeCommand)).toEqual([{ InstanceId: 'i-1', Groups: [SHARED, 'sg-web'] }]);
    expect(inputs(RevokeSecurityGroupIngressCommand)).toEqual([]);
    expect(report).toMatchObject({ created: ['web'], attached: ['i-1'], failures: [] });
    sharedGroupUntouched();
  });

  it('sends nothing when EC2 already matches the decision', async () => {
    groupsAre([group('web', 'sg-web', [tcp(80)])]);
    instancesAre(['i-1', [SHARED, 'sg-web']]);
    const report = await firewall.applyFirewall('ctl', exposedWeb('80/tcp'));
    for (const command of [
      CreateSecurityGroupCommand,
      AuthorizeSecurityGroupIngressCommand,
      RevokeSecurityGroupIngressCommand,
      ModifyInstanceAttributeCommand,
      DeleteSecurityGroupCommand,
    ])
      expect(inputs(command)).toEqual([]);
    expect(report).toEqual({ created: [], opened: [], closed: [], attached: [], deleted: [], inUse: [], failures: [] });
  });

  it('opens what is missing and closes what is no longer open, rule by rule', async () => {
    groupsAre([
      group('web', 'sg-web', [tcp(80), tcp(22), { IpProtocol: 'tcp', FromPort: 443, ToPort: 443, Ipv6Ranges: [{ CidrIpv6: '::/0' }] }]),
    ]);
    instancesAre(['i-1', [SHARED, 'sg-web']]);
    await firewall.applyFirewall('ctl', exposedWeb('80/tcp', '443/tcp'));
    expect(inputs(RevokeSecurityGroupIngressCommand)).toEqual([
      { GroupId: 'sg-web', IpPermissions: [tcp(22)] },
      { GroupId: 'sg-web', IpPermissions: [{ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, Ipv6Ranges: [{ CidrIpv6: '::/0' }] }] },
    ]);
    expect(inputs(AuthorizeSecurityGroupIngressCommand)).toEqual([{ GroupId: 'sg-web', IpPermissions: [tcp(443)] }]);
    sharedGroupUntouched();
  });

  it('takes a group another run created meanwhile (InvalidGroup.Duplicate) as its own', async () => {
    // The listing misses it; the lookup by name after the refusal finds it.
    let listed = 0;
    ec2.on(DescribeSecurityGroupsCommand).callsFake((input: DescribeSecurityGroupsCommandInput) => {
      const byName = input.Filters?.some((f) => f.Name === 'group-name');
      if (!byName) listed++;
      return { SecurityGroups: byName ? [group('web', 'sg-other-run')] : [] };
    });
    ec2.on(CreateSecurityGroupCommand).rejects(awsError('InvalidGroup.Duplicate'));
    instancesAre(['i-1', [SHARED]]);
    const report = await firewall.applyFirewall('ctl', exposedWeb('80/tcp'));
    expect(listed).toBe(1);
    expect(inputs(AuthorizeSecurityGroupIngressCommand)).toEqual([{ GroupId: 'sg-other-run', IpPermissions: [tcp(80)] }]);
    expect(inputs(ModifyInstanceAttributeCommand)).toEqual([{ InstanceId: 'i-1', Groups: [SHARED, 'sg-other-run'] }]);
    expect(report.failures).toEqual([]);
  });

  it('refuses a group of that name that is not this controller’s, saying what to do', async () => {
    ec2.on(DescribeSecurityGroupsCommand).callsFake((input: DescribeSecurityGroupsCommandInput) => {
      const byName = input.Filters?.some((f) => f.Name === 'group-name');
      return { SecurityGroups: byName ? [{ GroupId: 'sg-theirs', GroupName: 'drover-ctl-web', Tags: [] }] : [] };
    });
    ec2.on(CreateSecurityGroupCommand).rejects(awsError('InvalidGroup.Duplicate'));
    instancesAre(['i-1', [SHARED]]);
    const report = await firewall.applyFirewall('ctl', exposedWeb('80/tcp'));
    expect(report.failures).toEqual([expect.stringContaining('is not this controller')]);
    expect(report.failures[0]).toContain('delete or rename it');
    expect(inputs(AuthorizeSecurityGroupIngressCommand)).toEqual([]);
    expect(inputs(ModifyInstanceAttributeCommand)).toEqual([]);
  });

  it('takes InvalidPermission.Duplicate and InvalidPermission.NotFound as done', async () => {
    groupsAre([group('web', 'sg-web', [tcp(22)])]);
    instancesAre(['i-1', [SHARED, 'sg-web']]);
    ec2.on(AuthorizeSecurityGroupIngressCommand).rejects(awsError('InvalidPermission.Duplicate'));
    ec2.on(RevokeSecurityGroupIngressCommand).rejects(awsError('InvalidPermission.NotFound'));
    const report = await firewall.applyFirewall('ctl', exposedWeb('80/tcp'));
    expect(report).toMatchObject({ opened: ['web 80/tcp from 0.0.0.0/0'], closed: ['web 22/tcp from 0.0.0.0/0'], failures: [] });
  });

  it('reports any other refusal with AWS’s words, and still does the rest', async () => {
    groupsAre([group('web', 'sg-web')]);
    instancesAre(['i-1', [SHARED, 'sg-web']], ['i-2', [SHARED]]);
    ec2.on(AuthorizeSecurityGroupIngressCommand).rejects(awsError('RulesPerSecurityGroupLimitExceeded'));
    const desired = { ...exposedWeb('80/tcp'), instances: [{ instanceId: 'i-2', applications: ['web'] }] };
    const report = await firewall.applyFirewall('ctl', desired);
    expect(report.failures).toEqual([expect.stringContaining('RulesPerSecurityGroupLimitExceeded')]);
    expect(inputs(ModifyInstanceAttributeCommand)).toEqual([
      { InstanceId: 'i-1', Groups: [SHARED] },
      { InstanceId: 'i-2', Groups: [SHARED, 'sg-web'] },
    ]);
  });
});

describe('ec2 firewall: unexposing and removing', () => {
  it('closes every port of an unexposed application and keeps its group attached', async () => {
    groupsAre([group('web', 'sg-web', [tcp(80), tcp(443)])]);
    instancesAre(['i-1', [SHARED, 'sg-web']]);
    await firewall.applyFirewall('ctl', exposedWeb());
    expect(inputs(RevokeSecurityGroupIngressCommand)).toEqual([
      { GroupId: 'sg-web', IpPermissions: [tcp(80)] },
      { GroupId: 'sg-web', IpPermissions: [tcp(443)] },
    ]);
    expect(inputs(ModifyInstanceAttributeCommand)).toEqual([]);
    expect(inputs(DeleteSecurityGroupCommand)).toEqual([]);
    sharedGroupUntouched();
  });

  it('detaches the group of an application that is gone, then deletes it', async () => {
    groupsAre([group('gone', 'sg-gone', [tcp(80)])]);
    instancesAre(['i-1', [SHARED, 'sg-gone']]);
    const report = await firewall.applyFirewall('ctl', { groups: [], instances: [] });
    expect(inputs(ModifyInstanceAttributeCommand)).toEqual([{ InstanceId: 'i-1', Groups: [SHARED] }]);
    expect(inputs(DeleteSecurityGroupCommand)).toEqual([{ GroupId: 'sg-gone' }]);
    expect(report).toMatchObject({ deleted: ['gone'], inUse: [], failures: [] });
    sharedGroupUntouched();
  });

  it('leaves a group still held by a terminating instance for a later run, and takes one already gone as deleted', async () => {
    groupsAre([group('held', 'sg-held'), group('gone', 'sg-gone')]);
    instancesAre();
    ec2.on(DeleteSecurityGroupCommand, { GroupId: 'sg-held' }).rejects(awsError('DependencyViolation'));
    ec2.on(DeleteSecurityGroupCommand, { GroupId: 'sg-gone' }).rejects(awsError('InvalidGroup.NotFound'));
    const report = await firewall.applyFirewall('ctl', { groups: [], instances: [] });
    expect(report).toMatchObject({ deleted: ['gone'], inUse: ['held'], failures: [] });
  });

  it('never changes the shared group, even if a listing were to name it', async () => {
    groupsAre([{ ...group('web', SHARED, [tcp(22)]) }]);
    instancesAre(['i-1', [SHARED]]);
    await firewall.applyFirewall('ctl', exposedWeb('80/tcp'));
    sharedGroupUntouched();
    expect(inputs(RevokeSecurityGroupIngressCommand)).toEqual([]);
    expect(inputs(AuthorizeSecurityGroupIngressCommand)).toEqual([{ GroupId: 'sg-web', IpPermissions: [tcp(80)] }]);
  });

  it('does not look at instances while the controller has no group and needs none', async () => {
    groupsAre([]);
    instancesAre(['i-1', [SHARED]]);
    await firewall.applyFirewall('ctl', { groups: [], instances: [] });
    expect(inputs(DescribeInstancesCommand)).toEqual([]);
    expect(inputs(ModifyInstanceAttributeCommand)).toEqual([]);
  });

  it('lists only groups and instances of this controller, in the machines’ VPC', async () => {
    groupsAre([group('web', 'sg-web')]);
    instancesAre();
    await firewall.applyFirewall('ctl', { groups: [], instances: [] });
    expect(inputs(DescribeSecurityGroupsCommand)[0]).toMatchObject({
      Filters: [
        { Name: 'tag:drover:controller', Values: ['ctl'] },
        { Name: 'tag-key', Values: ['drover:application'] },
        { Name: 'vpc-id', Values: [VPC] },
      ],
    });
    expect(inputs(DescribeInstancesCommand)[0]).toMatchObject({
      Filters: [{ Name: 'tag:drover:controller', Values: ['ctl'] }, expect.anything()],
    });
  });
});

describe('ec2 provider: its firewall', () => {
  const options = { client, region: 'us-east-1', deploymentId: 'dep-1', agentBundle: { url: 'https://x' }, securityGroupIds: [SHARED] };
  it('has one where it knows the machines’ VPC, and none otherwise', () => {
    expect(new Ec2Provider({ ...options, vpcId: VPC }).firewall).toBeInstanceOf(Ec2Firewall);
    expect(new Ec2Provider(options).firewall).toBeUndefined();
  });
});
