// EBS volumes for storage instances, as Juju's ec2 provider makes them
// (https://github.com/juju/juju/blob/3.6/internal/provider/ec2/ebs.go): in the availability zone
// of the instance they are for, tagged as drover's instances are (tags.ts), attached under the
// first free name of /dev/sdf../dev/sdz, and found again by the controller's tags. Every call is
// safe to repeat (docs/architecture.md, 'Idempotent side effects'): CreateVolume carries a
// ClientToken per deployment, storage instance and attempt, attaching a volume already attached
// to the instance answers its device, and detaching or deleting one already so succeeds. Waits
// are bounded, by a clock and a sleep the caller may replace; an error is a ProviderError,
// transient or not as the instance calls' are (errors.ts).
import { createHash } from 'node:crypto';
import {
  AttachVolumeCommand,
  CreateVolumeCommand,
  DeleteVolumeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  DetachVolumeCommand,
  type CreateVolumeCommandInput,
  type EC2Client,
  type Instance,
  type Tag,
  type Volume,
} from '@aws-sdk/client-ec2';
import { DEFAULT_MODEL_KEY } from '../../domain/models.js';
import { errorMessage } from '../../domain/errors.js';
import { ProviderError, type VolumeInfo, type VolumeRequest, type Volumes } from '../provider.js';
import { ebsVolumeParameters } from './ebs-pool.js';
import { awsErrorCode, toProviderError } from './errors.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG, MODEL_TAG, STORAGE_TAG } from './tags.js';

/** How long the waits of one call may take, and how often they look. */
export interface VolumeWaits {
  /** For a new volume to leave `creating` (Juju: 5 s). */
  createdMs: number;
  /** For an attachment or a detachment to complete. */
  attachedMs: number;
  pollMs: number;
}

export const DEFAULT_VOLUME_WAITS: VolumeWaits = { createdMs: 5_000, attachedMs: 30_000, pollMs: 500 };

export interface Ec2VolumesOptions {
  client: EC2Client;
  /** This deployment of the controller (ec2-provider.ts, Ec2ProviderOptions.deploymentId says why it is in tokens and tags). */
  deploymentId: string;
  waits?: Partial<VolumeWaits>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

// Juju's device names: /dev/sdf to /dev/sdz, no partition number (some workloads, Ceph among
// them, want whole disks). /dev/sda1 is the root volume; sdb-sde Juju leaves to instance stores.
const DEVICE_NAMES = [...'fghijklmnopqrstuvwxyz'].map((letter) => `/dev/sd${letter}`);
const ROOT_DEVICE_NAME = '/dev/sda1';
// AttachVolume says a name is taken either way (Juju's deviceInUse and deviceInUseRegexp).
const DEVICE_IN_USE = /Attachment point .* is already in use/;
// Answers of a detach or delete that find it done already (Juju's incorrectState, attachmentNotFound, volumeNotFound).
const ALREADY_DETACHED = new Set(['IncorrectState', 'InvalidAttachment.NotFound', 'InvalidVolume.NotFound']);
const GONE = new Set(['deleting', 'deleted', 'error']);
const RUNNING_OR_STARTING = new Set(['pending', 'running']);

/**
 * CreateVolume's idempotency token: the same storage instance and attempt always give the same
 * token, so a retried call answers the volume the first one made; sha256 hex is EC2's 64-character limit.
 */
export function volumeClientToken(controllerId: string, deploymentId: string, model: string, storageId: string, attempt: number): string {
  return createHash('sha256')
    .update(JSON.stringify(['volume', controllerId, deploymentId, model, storageId, attempt]))
    .digest('hex');
}

const tagValue = (tags: Tag[] | undefined, key: string): string | undefined => tags?.find((t) => t.Key === key)?.Value;

/** The volume as the provisioner sees it. */
export function toVolumeInfo(volume: Volume): VolumeInfo {
  return {
    volumeId: volume.VolumeId ?? '',
    state: volume.State ?? 'creating',
    model: tagValue(volume.Tags, MODEL_TAG) ?? DEFAULT_MODEL_KEY,
    storageId: tagValue(volume.Tags, STORAGE_TAG) ?? '',
    sizeGiB: volume.Size ?? 0,
    ...(volume.AvailabilityZone ? { availabilityZone: volume.AvailabilityZone } : {}),
    attachments: (volume.Attachments ?? []).map((a) => ({
      instanceId: a.InstanceId ?? '',
      state: a.State ?? 'attaching',
      ...(a.Device ? { device: a.Device } : {}),
    })),
    ...(volume.CreateTime ? { createdAt: volume.CreateTime.getTime() } : {}),
  };
}

export class Ec2Volumes implements Volumes {
  private readonly client: EC2Client;
  private readonly waits: VolumeWaits;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: Ec2VolumesOptions) {
    this.client = options.client;
    this.waits = { ...DEFAULT_VOLUME_WAITS, ...options.waits };
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  }

  async ensureVolume(request: VolumeRequest): Promise<VolumeInfo> {
    let parameters;
    try {
      parameters = ebsVolumeParameters(request.sizeMiB, request.poolAttributes);
    } catch (e) {
      // The pool or the size: the user's to change, whatever else fails.
      throw new ProviderError(errorMessage(e), false);
    }
    const instance = await this.describeInstance(request.instanceId);
    const state = instance.State?.Name ?? '';
    if (!RUNNING_OR_STARTING.has(state)) throw new ProviderError(`cannot attach to non-running instance ${request.instanceId}`, false);
    const { deploymentId } = this.options;
    const inDefault = request.model === DEFAULT_MODEL_KEY;
    // The instances' tags (ec2-provider.ts), and the storage instance in place of the machine.
    const tags: Tag[] = [
      { Key: CONTROLLER_TAG, Value: request.controllerId },
      { Key: DEPLOYMENT_TAG, Value: deploymentId },
      { Key: STORAGE_TAG, Value: request.storageId },
      ...(inDefault ? [] : [{ Key: MODEL_TAG, Value: request.model }]),
      {
        Key: 'Name',
        Value: `drover-${request.controllerId}-${inDefault ? '' : `${request.model}-`}storage-${request.storageId.replace('/', '-')}`,
      },
    ];
    const input: CreateVolumeCommandInput = {
      ClientToken: volumeClientToken(request.controllerId, deploymentId, request.model, request.storageId, request.attempt),
      AvailabilityZone: instance.Placement?.AvailabilityZone,
      Size: parameters.sizeGiB,
      VolumeType: parameters.volumeType,
      // Always, as drover's root volumes (ebs-pool.ts says why `encrypted=false` changes nothing).
      Encrypted: true,
      ...(parameters.kmsKeyId ? { KmsKeyId: parameters.kmsKeyId } : {}),
      ...(parameters.iops ? { Iops: parameters.iops } : {}),
      ...(parameters.throughput ? { Throughput: parameters.throughput } : {}),
      TagSpecifications: [{ ResourceType: 'volume', Tags: tags }],
    };
    let volume: VolumeInfo;
    try {
      volume = toVolumeInfo(await this.client.send(new CreateVolumeCommand(input)));
    } catch (e) {
      // Same token, other parameters (the pool changed between attempts' retries): an earlier call
      // made the volume, so find it rather than fail or make another.
      if (awsErrorCode(e) !== 'IdempotentParameterMismatch') throw toProviderError(e, 'cannot create volume');
      volume = await this.findMadeFor(request);
    }
    if (GONE.has(volume.state))
      throw new ProviderError(`volume ${volume.volumeId} made for storage ${request.storageId} is ${volume.state}`, false);
    return volume;
  }

  async attachVolume(volumeId: string, instanceId: string): Promise<{ device: string }> {
    const created = await this.waitFor(volumeId, this.waits.createdMs, (v) => v.state !== 'creating');
    if (!created) throw new ProviderError(`timed out waiting for volume ${volumeId} to become available (creating)`, true);
    if (created.state === 'in-use') {
      // Attached already: to this instance (an earlier call), or to another, which is the user's to sort out.
      if (created.attachments.length !== 1)
        throw new ProviderError(`volume ${volumeId} has unexpected attachment count: ${created.attachments.length}`, false);
      const attachment = created.attachments[0]!;
      if (attachment.instanceId !== instanceId)
        throw new ProviderError(`volume ${volumeId} is attached to ${attachment.instanceId}`, false);
    } else if (created.state === 'available') {
      await this.attachUnderFreeName(volumeId, instanceId);
    } else {
      throw new ProviderError(`cannot attach to volume with status "${created.state}"`, false);
    }
    const attached = await this.waitFor(volumeId, this.waits.attachedMs, (v) =>
      v.attachments.some((a) => a.instanceId === instanceId && a.state === 'attached'),
    );
    if (!attached) throw new ProviderError(`timed out waiting for volume ${volumeId} to attach to ${instanceId}`, true);
    return { device: attached.attachments.find((a) => a.instanceId === instanceId)!.device ?? '' };
  }

  async detachVolume(volumeId: string, instanceId: string): Promise<void> {
    try {
      await this.client.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId }));
    } catch (e) {
      if (!ALREADY_DETACHED.has(awsErrorCode(e) ?? '')) throw toProviderError(e, `cannot detach volume ${volumeId} from ${instanceId}`);
      return;
    }
    const detached = await this.waitFor(volumeId, this.waits.attachedMs, (v) => !v.attachments.some((a) => a.instanceId === instanceId), {
      goneIsDone: true,
    });
    if (!detached) throw new ProviderError(`timed out waiting for volume ${volumeId} to detach from ${instanceId}`, true);
  }

  async deleteVolume(volumeId: string): Promise<void> {
    try {
      await this.client.send(new DeleteVolumeCommand({ VolumeId: volumeId }));
    } catch (e) {
      const code = awsErrorCode(e);
      if (code === 'InvalidVolume.NotFound') return;
      // Still attached, or detaching: the next reconcile deletes it once it is free.
      if (code === 'VolumeInUse' || code === 'IncorrectState')
        throw new ProviderError(`cannot delete volume ${volumeId}: it is still in use; will retry once it is detached`, true);
      throw toProviderError(e, `cannot delete volume ${volumeId}`);
    }
  }

  async listVolumes(controllerId: string): Promise<VolumeInfo[]> {
    const out: VolumeInfo[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new DescribeVolumesCommand({
            // Storage volumes only: instances' root volumes carry the controller's tags too, but no storage tag.
            Filters: [
              { Name: `tag:${CONTROLLER_TAG}`, Values: [controllerId] },
              { Name: `tag:${DEPLOYMENT_TAG}`, Values: [this.options.deploymentId] },
              { Name: 'tag-key', Values: [STORAGE_TAG] },
            ],
            MaxResults: 500,
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        for (const volume of page.Volumes ?? []) {
          // Never a root volume, whatever its tags say (Juju's listVolumes skips them too).
          if ((volume.Attachments ?? []).some((a) => a.Device === ROOT_DEVICE_NAME)) continue;
          out.push(toVolumeInfo(volume));
        }
        nextToken = page.NextToken;
      } while (nextToken);
    } catch (e) {
      throw toProviderError(e, 'cannot list volumes');
    }
    return out;
  }

  /**
   * Tries the free names in Juju's order: the instance's own mappings say which are taken, and a
   * name taken meanwhile (AttachVolume says so) gives way to the next.
   */
  private async attachUnderFreeName(volumeId: string, instanceId: string): Promise<void> {
    const instance = await this.describeInstance(instanceId);
    const taken = new Set((instance.BlockDeviceMappings ?? []).map((m) => (m.DeviceName ?? '').replace(/^\/dev\/xvd/, '/dev/sd')));
    for (const device of DEVICE_NAMES.filter((name) => !taken.has(name))) {
      try {
        await this.client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: device }));
        return;
      } catch (e) {
        const code = awsErrorCode(e);
        if (code === 'InvalidDevice.InUse' || (code === 'InvalidParameterValue' && DEVICE_IN_USE.test(errorMessage(e)))) continue;
        // An instance still starting cannot take a volume yet: it will.
        if (code === 'IncorrectState')
          throw new ProviderError(`cannot attach volume ${volumeId} to ${instanceId} yet: ${errorMessage(e)}`, true);
        throw toProviderError(e, 'attaching volume');
      }
    }
    throw new ProviderError('too many EBS volumes to attach', false);
  }

  private async describeInstance(instanceId: string): Promise<Instance> {
    try {
      const page = await this.client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
      const instance = (page.Reservations ?? []).flatMap((r) => r.Instances ?? [])[0];
      if (instance) return instance;
    } catch (e) {
      if (awsErrorCode(e) !== 'InvalidInstanceID.NotFound') throw toProviderError(e, 'querying instance details');
    }
    // DescribeInstances is eventually consistent: an instance launched a moment ago may not show yet.
    throw new ProviderError(`querying instance details: instance ${instanceId} not found yet; will retry`, true);
  }

  /**
   * The volume an earlier call with this request's token made. CreateVolume only answers
   * IdempotentParameterMismatch for a token it has used; DescribeVolumes may not list the volume
   * yet, which is transient.
   */
  private async findMadeFor(request: VolumeRequest): Promise<VolumeInfo> {
    const page = await this.client
      .send(
        new DescribeVolumesCommand({
          Filters: [
            { Name: `tag:${CONTROLLER_TAG}`, Values: [request.controllerId] },
            { Name: `tag:${DEPLOYMENT_TAG}`, Values: [this.options.deploymentId] },
            { Name: `tag:${STORAGE_TAG}`, Values: [request.storageId] },
          ],
        }),
      )
      .catch((e: unknown) => {
        throw toProviderError(e, 'cannot create volume');
      });
    const found = (page.Volumes ?? []).map(toVolumeInfo).filter((v) => v.model === request.model);
    const live = found.find((v) => !GONE.has(v.state)) ?? found[0];
    if (live) return live;
    throw new ProviderError(
      `cannot create volume: EC2 has a volume for storage ${request.storageId} (IdempotentParameterMismatch) but does not list it yet; will retry`,
      true,
    );
  }

  /**
   * Looks at the volume until `done` holds or `withinMs` has passed (undefined then). A volume
   * not found is transient (DescribeVolumes lags CreateVolume), unless the caller waits for it to go.
   */
  private async waitFor(
    volumeId: string,
    withinMs: number,
    done: (volume: VolumeInfo) => boolean,
    options: { goneIsDone?: boolean } = {},
  ): Promise<VolumeInfo | undefined> {
    const deadline = this.now() + withinMs;
    for (;;) {
      let volume: Volume | undefined;
      try {
        volume = (await this.client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }))).Volumes?.[0];
      } catch (e) {
        if (awsErrorCode(e) !== 'InvalidVolume.NotFound') throw toProviderError(e, 'querying volume');
      }
      if (!volume) {
        if (options.goneIsDone) return { volumeId, state: 'deleted', model: '', storageId: '', sizeGiB: 0, attachments: [] };
        throw new ProviderError(`querying volume: volume ${volumeId} not found yet; will retry`, true);
      }
      const info = toVolumeInfo(volume);
      if (done(info)) return info;
      if (this.now() >= deadline) return undefined;
      await this.sleep(this.waits.pollMs);
    }
  }
}
