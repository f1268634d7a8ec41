// The `ec2` provider: machines become EC2 instances. Every call is safe to repeat, because the
// provisioner is a level-triggered reconciler that may retry anything (docs/architecture.md,
// 'Idempotent side effects'): RunInstances carries a ClientToken per deployment, machine and
// attempt, termination ignores instances that are already gone, and listing finds instances by
// the controller's and the deployment's tags.
import { createHash } from 'node:crypto';
import {
  DescribeInstancesCommand,
  RunInstancesCommand,
  type EC2Client,
  type Instance,
  type RunInstancesCommandInput,
  type Tag,
} from '@aws-sdk/client-ec2';
import type { Firewall, InstanceInfo, Provider, StartInstanceRequest, Volumes } from '../provider.js';
import { ProviderError } from '../provider.js';
import { awsErrorCode, toProviderError } from './errors.js';
import { terminateInstances } from './terminate.js';
import { Ec2Firewall } from './firewall.js';
import { Ec2Volumes } from './volumes.js';
import { describeImagesFinder, type ImageFinder } from './images.js';
import { EC2_INSTANCE_TYPES, formatHardware, selectInstanceType, type InstanceTypeCatalogue } from './instance-types.js';
import { describeZones, isCapacityError, isZonalLaunchError, subnetOrder } from './subnets.js';
import { renderUserData, type AgentBundleSource } from './user-data.js';
import { DEFAULT_MODEL_KEY } from '../../domain/models.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG, MACHINE_TAG, MODEL_TAG } from './tags.js';

// Canonical's Ubuntu AMIs boot from /dev/sda1; mapping that name resizes the root volume
// (any other name would attach a second, empty volume instead).
const ROOT_DEVICE_NAME = '/dev/sda1';
// States of instances that still exist for the provisioner (terminated ones are history).
const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped'];
// States of an instance on its way out or gone: never adopted for a machine.
const GONE_STATES = ['shutting-down', 'terminated'];

export interface Ec2ProviderOptions {
  client: EC2Client;
  region: string;
  /**
   * This deployment of the controller: on AWS, the UUID CloudFormation gives the stack when it is
   * created (kept across updates, new when the stack is deleted and created again). EC2 keeps a
   * ClientToken for at least a day after its instance is terminated, and a redeployed controller
   * numbers its machines from 0 again: without this value in the token, its machine 0 would be
   * handed the old deployment's instance. It also tags every instance, and listing filters on it,
   * so a controller never lists, adopts or terminates another deployment's instances.
   */
  deploymentId: string;
  /**
   * The subnets machines spread over, one per availability zone (subnets.ts says how one is
   * chosen and why a full zone falls back to the next). None: EC2's (or the launch template's) choice.
   */
  subnetIds?: string[];
  /** The machines' shared groups: every instance gets them; the firewall never changes them. */
  securityGroupIds?: string[];
  /**
   * The machines' VPC, where the firewall makes each application's group (firewall.ts). None: no
   * firewall, and exposed applications stay unreachable.
   */
  vpcId?: string;
  /** The instance profile lets the agent reach its queue and download its bundle. */
  instanceProfileArn?: string;
  launchTemplateId?: string;
  /** Where instances download the machine agent bundle: the same for every start (user-data.ts). */
  agentBundle: AgentBundleSource;
  agentBundleSha256?: string;
  catalogue?: InstanceTypeCatalogue;
  findImage?: ImageFinder;
}

/**
 * RunInstances' idempotency token: the same machine and attempt always give the same token, so
 * a retried start returns the instance the first call started; a new attempt (after a
 * provisioning error the user retried) gets a new one, and so does every machine of a new
 * deployment (Ec2ProviderOptions.deploymentId). sha256 hex is exactly EC2's 64-char limit.
 */
export function clientToken(controllerId: string, deploymentId: string, model: string, machineId: string, attempt: number): string {
  // Machine 0 of another model is another machine; `default`'s tokens are what they were before
  // there were many models, so a start retried across an upgrade still replays its own.
  const identity =
    model === DEFAULT_MODEL_KEY
      ? [controllerId, deploymentId, machineId, attempt]
      : [controllerId, deploymentId, model, machineId, attempt];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** The model an instance was started for: its tag, or `default` where it has none (MODEL_TAG). */
const modelOfTags = (tags: Tag[] | undefined): string => tagValue(tags, MODEL_TAG) ?? DEFAULT_MODEL_KEY;

const tagValue = (tags: Tag[] | undefined, key: string): string | undefined => tags?.find((t) => t.Key === key)?.Value;

function toInstanceInfo(instance: Instance, model: string, machineId: string, hardware?: string): InstanceInfo {
  const addresses = [instance.PrivateIpAddress, instance.PublicIpAddress, instance.Ipv6Address].filter((a): a is string => Boolean(a));
  return {
    instanceId: instance.InstanceId ?? '',
    model,
    machineId,
    state: instance.State?.Name ?? 'pending',
    ...(hardware ? { hardware } : {}),
    addresses,
  };
}

/**
 * An instance shutting down or terminated is never adopted: it is refused with what happened and
 * what to do, as Juju words a provisioning error. Not transient: retrying the same attempt would
 * replay the same token and get the same instance; a new attempt gets a new token.
 */
function refuseGone(instance: Instance, machineId: string): void {
  const state = instance.State?.Name ?? '';
  if (!GONE_STATES.includes(state)) return;
  const what = state === 'terminated' ? 'was terminated' : 'is shutting down';
  throw new ProviderError(
    `instance ${instance.InstanceId} started for machine ${machineId} ${what}; run "drover retry-provisioning ${machineId}" to start another`,
    false,
  );
}

export class Ec2Provider implements Provider {
  private readonly client: EC2Client;
  private readonly catalogue: InstanceTypeCatalogue;
  private readonly findImage: ImageFinder;
  readonly firewall?: Firewall;
  /** EBS volumes for the `ebs` storage pool (volumes.ts). */
  readonly volumes: Volumes;

  constructor(private readonly options: Ec2ProviderOptions) {
    this.client = options.client;
    this.volumes = new Ec2Volumes({ client: options.client, deploymentId: options.deploymentId });
    this.catalogue = options.catalogue ?? EC2_INSTANCE_TYPES;
    this.findImage = options.findImage ?? describeImagesFinder(options.client, options.region);
    if (options.vpcId) {
      this.firewall = new Ec2Firewall({
        client: options.client,
        deploymentId: options.deploymentId,
        vpcId: options.vpcId,
        sharedGroupIds: options.securityGroupIds ?? [],
      });
    }
  }

  async startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    const { region } = this.options;
    // Selection first: an unsatisfiable constraint is the user's to fix, whatever else fails.
    const choice = selectInstanceType(request.constraints, this.catalogue, region);
    const arch = choice.instanceType.arch;
    const imageId = await this.findImage(request.series, arch).catch((e: unknown) => {
      throw toProviderError(e, 'cannot find an image');
    });
    const userData = renderUserData({
      controllerId: request.controllerId,
      model: request.model,
      machineId: request.machineId,
      region,
      arch,
      apiUrl: request.agent.apiUrl,
      queueUrl: request.agent.queueUrl,
      agentBundle: this.options.agentBundle,
      ...(this.options.agentBundleSha256 ? { agentBundleSha256: this.options.agentBundleSha256 } : {}),
    });
    const { deploymentId } = this.options;
    const token = clientToken(request.controllerId, deploymentId, request.model, request.machineId, request.attempt);
    // Tags identify the machine for stray detection; they are visible to anyone who may list
    // instances, so they carry ids only. A `default` machine's are what they were before there
    // were many models; another model's carry its key (MODEL_TAG) and show it in the name.
    const inDefault = request.model === DEFAULT_MODEL_KEY;
    const tags: Tag[] = [
      { Key: CONTROLLER_TAG, Value: request.controllerId },
      { Key: DEPLOYMENT_TAG, Value: deploymentId },
      { Key: MACHINE_TAG, Value: request.machineId },
      ...(inDefault ? [] : [{ Key: MODEL_TAG, Value: request.model }]),
      {
        Key: 'Name',
        Value: inDefault
          ? `drover-${request.controllerId}-machine-${request.machineId}`
          : `drover-${request.controllerId}-${request.model}-machine-${request.machineId}`,
      },
    ];
    const input: RunInstancesCommandInput = {
      ClientToken: token,
      MinCount: 1,
      MaxCount: 1,
      ImageId: imageId,
      InstanceType: choice.instanceType.name as RunInstancesCommandInput['InstanceType'],
      UserData: userData,
      // IMDSv2 only: a request forged through the workload (SSRF) cannot read the user data.
      // As the launch template says (infra/machines.ts), in the request itself: one hop, so a
      // container on the machine cannot reach the instance role's credentials.
      MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled', HttpPutResponseHopLimit: 1 },
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
      ...(this.options.securityGroupIds?.length ? { SecurityGroupIds: this.options.securityGroupIds } : {}),
      ...(this.options.instanceProfileArn ? { IamInstanceProfile: { Arn: this.options.instanceProfileArn } } : {}),
      ...(this.options.launchTemplateId
        ? { LaunchTemplate: { LaunchTemplateId: this.options.launchTemplateId, Version: '$Default' } }
        : {}),
    };

    const instance = await this.launchInSomeZone(input, request.machineId).catch((e: unknown) => {
      throw toProviderError(e, 'cannot run instances');
    });
    return toInstanceInfo(instance, request.model, request.machineId, formatHardware(choice, instance.Placement?.AvailabilityZone));
  }

  /**
   * Tries the machine's subnets in its order until a zone takes the launch, all with the same
   * ClientToken (subnets.ts says why that is safe). Errors that are not about one zone end the
   * search at once: the same request would fail the same way elsewhere.
   */
  private async launchInSomeZone(input: RunInstancesCommandInput, machineId: string): Promise<Instance> {
    const subnets = subnetOrder(this.options.subnetIds ?? [], machineId);
    if (subnets.length === 0) return this.runOrReplay(input, machineId);
    const refused: { subnetId: string; error: unknown }[] = [];
    for (const subnetId of subnets) {
      try {
        return await this.runOrReplay({ ...input, SubnetId: subnetId }, machineId);
      } catch (e) {
        if (!isZonalLaunchError(e)) throw e;
        refused.push({ subnetId, error: e });
      }
    }
    throw await this.noZoneTookIt(refused);
  }

  /** One RunInstances call, or the instance an earlier call with the same token started. */
  private async runOrReplay(input: RunInstancesCommandInput, machineId: string): Promise<Instance> {
    let instance: Instance | undefined;
    try {
      const reservation = await this.client.send(new RunInstancesCommand(input));
      instance = reservation.Instances?.[0];
    } catch (e) {
      // Same token, different parameters (a newer image or agent bundle after a deployment, another subnet):
      // an earlier call did start the instance, so find it rather than fail or start another.
      if (awsErrorCode(e) !== 'IdempotentParameterMismatch') throw e;
      instance = await this.findByClientToken(input.ClientToken!, machineId);
    }
    if (!instance?.InstanceId) throw new ProviderError('cannot run instances: EC2 returned no instance', true);
    // A replay returns the token's instance whatever became of it since; one that is gone must
    // not become the machine's instance (its agent will never report).
    refuseGone(instance, machineId);
    return instance;
  }

  /**
   * Every zone refused the launch. Capacity comes back by itself, so that is transient (the
   * provisioner retries, starting again in the machine's first zone); a type none of the zones
   * offers is the user's to change.
   */
  private async noZoneTookIt(refused: { subnetId: string; error: unknown }[]): Promise<ProviderError> {
    const zones = await describeZones(
      this.client,
      refused.map((r) => r.subnetId),
    );
    const tried = refused.map((r) => `${zones.get(r.subnetId) ?? r.subnetId}: ${awsErrorCode(r.error)}`).join(', ');
    const last = toProviderError(refused.at(-1)!.error, 'cannot run instances');
    return new ProviderError(
      `${last.message}; tried every availability zone of the machine network (${tried})`,
      refused.some((r) => isCapacityError(r.error)),
    );
  }

  async stopInstances(instanceIds: string[]): Promise<void> {
    await terminateInstances(this.client, instanceIds);
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
              { Name: `tag:${DEPLOYMENT_TAG}`, Values: [this.options.deploymentId] },
              { Name: 'instance-state-name', Values: LIVE_STATES },
            ],
            MaxResults: 1000,
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        for (const reservation of page.Reservations ?? []) {
          for (const instance of reservation.Instances ?? []) {
            // An instance without a machine tag is a stray too: '' matches no machine.
            out.push(toInstanceInfo(instance, modelOfTags(instance.Tags), tagValue(instance.Tags, MACHINE_TAG) ?? ''));
          }
        }
        nextToken = page.NextToken;
      } while (nextToken);
    } catch (e) {
      throw toProviderError(e, 'cannot list instances');
    }
    return out;
  }

  /**
   * The live instance a launch with this token started. EC2 only answers
   * IdempotentParameterMismatch for a token it has bound to an instance, but DescribeInstances is
   * eventually consistent and may not list that instance yet: a transient error, so the
   * provisioner asks again. One found only gone is refused (never returned).
   */
  private async findByClientToken(token: string, machineId: string): Promise<Instance> {
    const page = await this.client.send(new DescribeInstancesCommand({ Filters: [{ Name: 'client-token', Values: [token] }] }));
    const found = (page.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    const live = found.find((i) => LIVE_STATES.includes(i.State?.Name ?? ''));
    if (live) return live;
    const gone = found.find((i) => GONE_STATES.includes(i.State?.Name ?? ''));
    if (gone) refuseGone(gone, machineId);
    throw new ProviderError(
      `cannot run instances: EC2 has an instance for machine ${machineId}'s launch (IdempotentParameterMismatch) but does not list it yet; will retry`,
      true,
    );
  }
}
