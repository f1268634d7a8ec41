// The ec2 provider's firewall: one security group per application (application-groups.ts), its
// ingress the rules shared/domain/firewall.ts decided, attached to the instances hosting the
// application's units beside the machines' shared group, which it never changes.
//
// A run reads what exists (DescribeSecurityGroups, DescribeInstances) and changes only what
// differs, in an order that never opens more than state allows: groups first (with no ingress),
// then their rules, then the instances' groups, and last the deletion of groups no application
// needs. Two runs at once, or a run repeated after a crash, converge to the same: every "already
// so" answer (InvalidGroup.Duplicate, InvalidPermission.Duplicate, InvalidPermission.NotFound,
// InvalidGroup.NotFound) is success. One instance or group that fails does not stop the rest; it
// is reported and tried again by the next run.
import {
  AuthorizeSecurityGroupIngressCommand,
  DescribeInstancesCommand,
  ModifyInstanceAttributeCommand,
  RevokeSecurityGroupIngressCommand,
  type EC2Client,
  type Instance,
  type IpPermission,
  type SecurityGroup,
} from '@aws-sdk/client-ec2';
import { EXPOSED_TO_CIDR, type DesiredFirewall } from '../../domain/firewall.js';
import { formatPortRange, type PortRange } from '../../domain/port-ranges.js';
import type { Firewall, FirewallReport } from '../provider.js';
import { createApplicationGroup, deleteApplicationGroup, describeApplicationGroups, type ApplicationGroup } from './application-groups.js';
import { awsErrorCode, toProviderError } from './errors.js';
import { CONTROLLER_TAG } from './tags.js';
import { errorMessage } from '../../domain/errors.js';

export interface Ec2FirewallOptions {
  client: EC2Client;
  deploymentId: string;
  /** The machines' VPC: groups are made, and looked for, there only. */
  vpcId: string;
  /** The machines' shared groups: never given a rule, kept on every instance. */
  sharedGroupIds: readonly string[];
}

// Instances that can have their groups changed; one still pending is changed by a later run.
const CHANGEABLE_STATES = ['pending', 'running', 'stopping', 'stopped'];

/** One ingress rule in a form two rules compare equal by. */
interface Rule {
  key: string;
  permission: IpPermission;
}

export class Ec2Firewall implements Firewall {
  constructor(private readonly options: Ec2FirewallOptions) {}

  async applicationGroups(controllerId: string): Promise<string[]> {
    return (await this.listGroups(controllerId)).map((g) => g.application);
  }

  async applyFirewall(controllerId: string, desired: DesiredFirewall): Promise<FirewallReport> {
    const report: FirewallReport = { created: [], opened: [], closed: [], attached: [], deleted: [], inUse: [], failures: [] };
    const existing = new Map((await this.listGroups(controllerId)).map((g) => [g.application, g]));

    // The group id of every application that should have one, made if missing.
    const groupIds = new Map<string, string>();
    for (const { application, ingress } of desired.groups) {
      try {
        let group = existing.get(application);
        if (!group) {
          const { client, deploymentId, vpcId } = this.options;
          const groupId = await createApplicationGroup({ client, deploymentId, vpcId, controllerId, application });
          report.created.push(application);
          group = { application, groupId, group: { GroupId: groupId, IpPermissions: [] } };
        }
        groupIds.set(application, group.groupId);
        await this.setIngress(group, ingress, report);
      } catch (e) {
        report.failures.push(`application ${application}: ${errorMessage(e)}`);
      }
    }

    const managed = new Set([...[...existing.values()].map((g) => g.groupId), ...groupIds.values()]);
    // No group at all (nothing ever exposed, the usual case): no instance can have one to change.
    if (managed.size > 0) await this.attach(controllerId, desired, groupIds, managed, report);

    const wanted = new Set(desired.groups.map((g) => g.application));
    for (const group of existing.values()) {
      if (wanted.has(group.application)) continue;
      try {
        const outcome = await deleteApplicationGroup(this.options.client, this.guarded(group.groupId));
        (outcome === 'deleted' ? report.deleted : report.inUse).push(group.application);
      } catch (e) {
        report.failures.push(`application ${group.application}: ${errorMessage(e)}`);
      }
    }
    return report;
  }

  private async listGroups(controllerId: string): Promise<ApplicationGroup[]> {
    const groups = await describeApplicationGroups(this.options.client, controllerId, [{ Name: 'vpc-id', Values: [this.options.vpcId] }]);
    return groups.filter((g) => !this.options.sharedGroupIds.includes(g.groupId));
  }

  /** Rules in the group and not wanted are revoked, wanted and missing authorized: one call per rule. */
  private async setIngress(group: ApplicationGroup, ingress: PortRange[], report: FirewallReport): Promise<void> {
    const actual = rulesOf(group.group);
    const wanted = ingress.map(ruleOf);
    const wantedKeys = new Set(wanted.map((r) => r.key));
    const actualKeys = new Set(actual.map((r) => r.key));
    const { client } = this.options;
    const groupId = this.guarded(group.groupId);
    for (const rule of actual.filter((r) => !wantedKeys.has(r.key))) {
      try {
        await client.send(new RevokeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: [rule.permission] }));
      } catch (e) {
        if (awsErrorCode(e) !== 'InvalidPermission.NotFound') throw toProviderError(e, `cannot close ${rule.key} on ${groupId}`);
      }
      report.closed.push(`${group.application} ${rule.key}`);
    }
    for (const rule of wanted.filter((r) => !actualKeys.has(r.key))) {
      try {
        await client.send(new AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: [rule.permission] }));
      } catch (e) {
        if (awsErrorCode(e) !== 'InvalidPermission.Duplicate') throw toProviderError(e, `cannot open ${rule.key} on ${groupId}`);
      }
      report.opened.push(`${group.application} ${rule.key}`);
    }
  }

  /**
   * Every instance of the controller gets the groups of the applications it hosts, and loses
   * those of applications it no longer hosts; any other group it has (the shared one) stays.
   * ModifyInstanceAttribute replaces the whole list, so it is sent only when the list differs.
   */
  private async attach(
    controllerId: string,
    desired: DesiredFirewall,
    groupIds: Map<string, string>,
    managed: Set<string>,
    report: FirewallReport,
  ): Promise<void> {
    const wantedOn = new Map(desired.instances.map((i) => [i.instanceId, i.applications]));
    for (const instance of await this.listInstances(controllerId)) {
      const instanceId = instance.InstanceId!;
      const current = (instance.SecurityGroups ?? []).flatMap((g) => (g.GroupId ? [g.GroupId] : []));
      const kept = current.filter((id) => !managed.has(id));
      // An application whose group could not be made is left out; the next run adds it.
      const added = (wantedOn.get(instanceId) ?? []).flatMap((app) => groupIds.get(app) ?? []);
      const next = [...new Set([...kept, ...added])];
      if (sameSet(current, next)) continue;
      if (next.length === 0) {
        report.failures.push(`instance ${instanceId} would be left with no security group; it was launched without the machines' group`);
        continue;
      }
      try {
        await this.options.client.send(new ModifyInstanceAttributeCommand({ InstanceId: instanceId, Groups: next }));
        report.attached.push(instanceId);
      } catch (e) {
        // Terminated since it was listed: it holds no group any more.
        if (awsErrorCode(e) === 'InvalidInstanceID.NotFound') continue;
        report.failures.push(`instance ${instanceId}: ${toProviderError(e, 'cannot change security groups').message}`);
      }
    }
  }

  private async listInstances(controllerId: string): Promise<Instance[]> {
    const out: Instance[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await this.options.client.send(
          new DescribeInstancesCommand({
            Filters: [
              { Name: `tag:${CONTROLLER_TAG}`, Values: [controllerId] },
              { Name: 'instance-state-name', Values: CHANGEABLE_STATES },
            ],
            MaxResults: 1000,
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        for (const r of page.Reservations ?? []) for (const i of r.Instances ?? []) if (i.InstanceId) out.push(i);
        nextToken = page.NextToken;
      } while (nextToken);
    } catch (e) {
      throw toProviderError(e, 'cannot list instances');
    }
    return out;
  }

  /** The shared groups are found by no listing here; this keeps it so if that ever changes. */
  private guarded(groupId: string): string {
    if (this.options.sharedGroupIds.includes(groupId)) throw new Error(`refusing to change the machines' shared security group ${groupId}`);
    return groupId;
  }
}

const protocolOf = (p: IpPermission) => (p.IpProtocol === '-1' ? 'all' : (p.IpProtocol ?? ''));

function ruleOf(range: PortRange): Rule {
  return {
    key: `${formatPortRange(range)} from ${EXPOSED_TO_CIDR}`,
    permission: { IpProtocol: range.protocol, FromPort: range.from, ToPort: range.to, IpRanges: [{ CidrIp: EXPOSED_TO_CIDR }] },
  };
}

/**
 * The group's ingress, one rule per source, so that each compares with a wanted rule on its own.
 * Sources drover never adds (IPv6 ranges, other groups, prefix lists) are kept as rules of their
 * own, to be revoked: an application's group lets in only what its application opened.
 */
function rulesOf(group: SecurityGroup): Rule[] {
  const rules: Rule[] = [];
  for (const p of group.IpPermissions ?? []) {
    const ports = { IpProtocol: p.IpProtocol, FromPort: p.FromPort, ToPort: p.ToPort };
    const range = `${protocolOf(p)} ${p.FromPort ?? ''}-${p.ToPort ?? ''}`;
    for (const ip of p.IpRanges ?? []) {
      const portRange = portRangeOf(p);
      const key = portRange ? `${formatPortRange(portRange)} from ${ip.CidrIp}` : `${range} from ${ip.CidrIp}`;
      rules.push({ key, permission: { ...ports, IpRanges: [{ CidrIp: ip.CidrIp }] } });
    }
    for (const ip of p.Ipv6Ranges ?? []) rules.push({ key: `${range} from ${ip.CidrIpv6}`, permission: { ...ports, Ipv6Ranges: [ip] } });
    for (const pair of p.UserIdGroupPairs ?? [])
      rules.push({ key: `${range} from ${pair.GroupId}`, permission: { ...ports, UserIdGroupPairs: [{ GroupId: pair.GroupId }] } });
    for (const list of p.PrefixListIds ?? [])
      rules.push({
        key: `${range} from ${list.PrefixListId}`,
        permission: { ...ports, PrefixListIds: [{ PrefixListId: list.PrefixListId }] },
      });
  }
  return rules;
}

/** The rule's ports as drover spells them, when it is a rule drover could have made. */
function portRangeOf(p: IpPermission): PortRange | undefined {
  if (p.IpProtocol === 'tcp' || p.IpProtocol === 'udp') {
    if (p.FromPort === undefined || p.ToPort === undefined) return undefined;
    return { protocol: p.IpProtocol, from: p.FromPort, to: p.ToPort };
  }
  if (p.IpProtocol === 'icmp' && p.FromPort === -1 && p.ToPort === -1) return { protocol: 'icmp', from: -1, to: -1 };
  return undefined;
}

function sameSet(a: string[], b: string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}
