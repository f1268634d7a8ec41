// The `ec2` provider: machines become EC2 instances. Every call is safe to repeat, because the
// provisioner is a level-triggered reconciler that may retry anything (docs/architecture.md,
// 'Idempotent side effects'): RunInstances carries a ClientToken per machine and attempt,
// termination ignores instances that are already gone, and listing finds instances by the
// controller's tag.
import { createHash } from 'node:crypto';
import {
  DescribeInstancesCommand,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type EC2Client,
  type Instance,
  type RunInstancesCommandInput,
  type Tag,
} from '@aws-sdk/client-ec2';
import type { InstanceInfo, Provider, StartInstanceRequest } from '../provider.js';
import { ProviderError } from '../provider.js';
import { awsErrorCode, toProviderError } from './errors.js';
import { describeImagesFinder, type ImageFinder } from './images.js';
import { EC2_INSTANCE_TYPES, formatHardware, selectInstanceType, type InstanceTypeCatalogue } from './instance-types.js';
import { renderUserData } from './user-data.js';

export const CONTROLLER_TAG = 'drover:controller';
export const MACHINE_TAG = 'drover:machine';

// Canonical's Ubuntu AMIs boot from /dev/sda1; mapping that name resizes the root volume
// (any other name would attach a second, empty volume instead).
const ROOT_DEVICE_NAME = '/dev/sda1';
// States of instances that still exist for the provisioner (terminated ones are history).
const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped'];
const TERMINATE_BATCH = 1000; // TerminateInstances' limit per call

export interface Ec2ProviderOptions {
  client: EC2Client;
  region: string;
  subnetId?: string;
  securityGroupIds?: string[];
  /** The instance profile lets the agent reach its queue (and the bundle, if not presigned). */
  instanceProfileArn?: string;
  launchTemplateId?: string;
  /**
   * Where instances download the machine agent bundle. A function is asked once per start, so
   * a presigned S3 URL can be minted fresh for each instance rather than expire in config.
   */
  agentBundleUrl: string | (() => string | Promise<string>);
  agentBundleSha256?: string;
  catalogue?: InstanceTypeCatalogue;
  findImage?: ImageFinder;
}

/**
 * RunInstances' idempotency token: the same machine and attempt always give the same token, so
 * a retried start returns the instance the first call started; a new attempt (after a
 * provisioning error the user retried) gets a new one. sha256 hex is exactly EC2's 64-char limit.
 */
export function clientToken(controllerId: string, machineId: string, attempt: number): string {
  return createHash('sha256')
    .update(JSON.stringify([controllerId, machineId, attempt]))
    .digest('hex');
}

const tagValue = (tags: Tag[] | undefined, key: string): string | undefined => tags?.find((t) => t.Key === key)?.Value;

function toInstanceInfo(instance: Instance, machineId: string, hardware?: string): InstanceInfo {
  const addresses = [instance.PrivateIpAddress, instance.PublicIpAddress, instance.Ipv6Address].filter((a): a is string => Boolean(a));
  return {
    instanceId: instance.InstanceId ?? '',
    machineId,
    state: instance.State?.Name ?? 'pending',
    ...(hardware ? { hardware } : {}),
    addresses,
  };
}

export class Ec2Provider implements Provider {
  private readonly client: EC2Client;
  private readonly catalogue: InstanceTypeCatalogue;
  private readonly findImage: ImageFinder;

  constructor(private readonly options: Ec2ProviderOptions) {
    this.client = options.client;
    this.catalogue = options.catalogue ?? EC2_INSTANCE_TYPES;
    this.findImage = options.findImage ?? describeImagesFinder(options.client, options.region);
  }

  async startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    const { region } = this.options;
    // Selection first: an unsatisfiable constraint is the user's to fix, whatever else fails.
    const choice = selectInstanceType(request.constraints, this.catalogue, region);
    const arch = choice.instanceType.arch;
    const imageId = await this.findImage(request.series, arch).catch((e: unknown) => {
      throw toProviderError(e, 'cannot find an image');
    });
    const bundleUrl = this.options.agentBundleUrl;
    const userData = renderUserData({
      controllerId: request.controllerId,
      machineId: request.machineId,
      region,
      arch,
      ...request.agent,
      agentBundleUrl: typeof bundleUrl === 'string' ? bundleUrl : await bundleUrl(),
      ...(this.options.agentBundleSha256 ? { agentBundleSha256: this.options.agentBundleSha256 } : {}),
    });
    const token = clientToken(request.controllerId, request.machineId, request.attempt);
    // Tags identify the machine for stray detection; they are visible to anyone who may list
    // instances, so they carry ids only, never the credential.
    const tags: Tag[] = [
      { Key: CONTROLLER_TAG, Value: request.controllerId },
      { Key: MACHINE_TAG, Value: request.machineId },
      { Key: 'Name', Value: `drover-${request.controllerId}-machine-${request.machineId}` },
    ];
    const input: RunInstancesCommandInput = {
      ClientToken: token,
      MinCount: 1,
      MaxCount: 1,
      ImageId: imageId,
      InstanceType: choice.instanceType.name as RunInstancesCommandInput['InstanceType'],
      UserData: userData,
      // IMDSv2 only: a request forged through the workload (SSRF) cannot read the user data.
      MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled' },
      BlockDeviceMappings: [
        {
          DeviceName: ROOT_DEVICE_NAME,
          Ebs: { VolumeSize: choice.rootVolumeGiB, VolumeType: 'gp3', Encrypted: true, DeleteOnTermination: true },
        },
      ],
      TagSpecifications: [
        { ResourceType: 'instance', Tags: tags },
        { ResourceType: 'volume', Tags: tags },
      ],
      ...(this.options.subnetId ? { SubnetId: this.options.subnetId } : {}),
      ...(this.options.securityGroupIds?.length ? { SecurityGroupIds: this.options.securityGroupIds } : {}),
      ...(this.options.instanceProfileArn ? { IamInstanceProfile: { Arn: this.options.instanceProfileArn } } : {}),
      ...(this.options.launchTemplateId
        ? { LaunchTemplate: { LaunchTemplateId: this.options.launchTemplateId, Version: '$Default' } }
        : {}),
    };

    let instance: Instance | undefined;
    try {
      const reservation = await this.client.send(new RunInstancesCommand(input));
      instance = reservation.Instances?.[0];
    } catch (e) {
      // Same token, different parameters (a newer image, a fresh presigned URL): the first
      // call did start the instance, so find it rather than fail or start another.
      if (awsErrorCode(e) !== 'IdempotentParameterMismatch') throw toProviderError(e, 'cannot run instances');
      instance = await this.findByClientToken(token);
      if (!instance) throw toProviderError(e, 'cannot run instances');
    }
    if (!instance?.InstanceId) {
      throw new ProviderError('cannot run instances: EC2 returned no instance', true);
    }
    return toInstanceInfo(instance, request.machineId, formatHardware(choice, instance.Placement?.AvailabilityZone));
  }

  async stopInstances(instanceIds: string[]): Promise<void> {
    const ids = [...new Set(instanceIds.filter(Boolean))];
    for (let i = 0; i < ids.length; i += TERMINATE_BATCH) {
      await this.terminate(ids.slice(i, i + TERMINATE_BATCH));
    }
  }

  async listInstances(controllerId: string): Promise<InstanceInfo[]> {
    const out: InstanceInfo[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new DescribeInstancesCommand({
            Filters: [
              { Name: `tag:${CONTROLLER_TAG}`, Values: [controllerId] },
              { Name: 'instance-state-name', Values: LIVE_STATES },
            ],
            MaxResults: 1000,
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        for (const reservation of page.Reservations ?? []) {
          for (const instance of reservation.Instances ?? []) {
            // An instance without a machine tag is a stray too: '' matches no machine.
            out.push(toInstanceInfo(instance, tagValue(instance.Tags, MACHINE_TAG) ?? ''));
          }
        }
        nextToken = page.NextToken;
      } while (nextToken);
    } catch (e) {
      throw toProviderError(e, 'cannot list instances');
    }
    return out;
  }

  private async findByClientToken(token: string): Promise<Instance | undefined> {
    try {
      const page = await this.client.send(new DescribeInstancesCommand({ Filters: [{ Name: 'client-token', Values: [token] }] }));
      const found = (page.Reservations ?? []).flatMap((r) => r.Instances ?? []);
      return found.find((i) => LIVE_STATES.includes(i.State?.Name ?? '')) ?? found[0];
    } catch (e) {
      throw toProviderError(e, 'cannot run instances');
    }
  }

  // Termination must not stop at ids that are already gone: EC2 fails the whole call when any
  // id is unknown and names the unknown ones, so drop those and try the rest again.
  private async terminate(batch: string[]): Promise<void> {
    let remaining = batch;
    while (remaining.length > 0) {
      try {
        await this.client.send(new TerminateInstancesCommand({ InstanceIds: remaining }));
        return;
      } catch (e) {
        if (awsErrorCode(e) !== 'InvalidInstanceID.NotFound') throw toProviderError(e, 'cannot terminate instances');
        const named = new Set(String((e as Error).message).match(/i-[0-9a-f]+/g) ?? []);
        const rest = remaining.filter((id) => !named.has(id));
        if (rest.length === remaining.length) return this.terminateEach(remaining);
        remaining = rest;
      }
    }
  }

  // The message named no id we sent: fall back to one call per instance.
  private async terminateEach(ids: string[]): Promise<void> {
    for (const id of ids) {
      try {
        await this.client.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
      } catch (e) {
        if (awsErrorCode(e) !== 'InvalidInstanceID.NotFound') throw toProviderError(e, 'cannot terminate instances');
      }
    }
  }
}
