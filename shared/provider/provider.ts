// The Provider port: what the provisioner needs from a cloud. `ec2` implements it on AWS,
// `local` with agent processes on this host (like Juju's local provider).
import type { Constraints } from '../domain/constraints.js';
import type { DesiredFirewall } from '../domain/firewall.js';

export interface StartInstanceRequest {
  /** The controller's id: instances are tagged with it so strays can be found. */
  controllerId: string;
  /**
   * The key of the machine's model. Machine ids repeat across models, so the provider's identity of
   * a machine (EC2's token and tags, the local machine directory and instance id) is made of both;
   * for the `default` model's machines it is what it was before there were many models.
   */
  model: string;
  machineId: string;
  /**
   * Counts provisioning attempts of this machine. Together with the machine id it makes the
   * idempotency token: a provisioner that retries the same attempt never starts two instances.
   */
  attempt: number;
  series: string;
  constraints: Constraints;
  /** Everything the machine agent needs to start: API address, its queue, and its key if it has one. */
  agent: {
    apiUrl: string;
    /**
     * The machine's key, which the agent signs its requests with, where an instance has no identity
     * of its own (the local provider). Absent on EC2: there the instance role is the agent's identity
     * (functions/api/agent-identity.ts), and nothing secret is handed to an instance.
     */
    credential?: string;
    queueUrl: string;
  };
}

export interface InstanceInfo {
  instanceId: string;
  /** The key of the model of the machine the instance was started for. */
  model: string;
  machineId: string;
  /** The provider's view: pending, running, stopping, stopped, terminated. */
  state: string;
  hardware?: string;
  addresses: string[];
}

export class ProviderError extends Error {
  constructor(
    message: string,
    /** Transient errors are retried with backoff; others wait for the user (resolved/retry-provisioning). */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** What one firewall run changed, for the reconcile's report. */
export interface FirewallReport {
  /** Applications whose group was created. */
  created: string[];
  /** `<application> <range>` rules added and removed. */
  opened: string[];
  closed: string[];
  /** Instances whose groups were changed. */
  attached: string[];
  /** Applications whose group was deleted. */
  deleted: string[];
  /** Groups of applications that are gone, still attached to an instance on its way out: a later run deletes them. */
  inUse: string[];
  failures: string[];
}

/**
 * The firewall of a cloud with security groups, one per application (shared/domain/firewall.ts
 * decides what they hold). Every call is safe to repeat and to run twice at once: it reads what
 * exists, changes only what differs, and takes "already so" answers as success.
 */
export interface Firewall {
  /** The applications that have a group of this controller now. */
  applicationGroups(controllerId: string): Promise<string[]>;
  /** Makes the controller's groups, their rules and the instances' groups what `desired` says; deletes the others. */
  applyFirewall(controllerId: string, desired: DesiredFirewall): Promise<FirewallReport>;
}

/** One volume a Volumes provider is asked to make for a storage instance (shared/provisioner/provision-volume.ts). */
export interface VolumeRequest {
  controllerId: string;
  /** The key of the storage's model (storage ids repeat across models, as machine ids do). */
  model: string;
  /** The storage instance, `<name>/<n>`. */
  storageId: string;
  /**
   * Counts provisioning attempts of the storage instance: with its id it makes the idempotency
   * token, so a retried attempt never makes a second volume, and a new attempt (after an error the
   * user retried) makes a new one.
   */
  attempt: number;
  /** As Juju sizes storage: MiB. */
  sizeMiB: number;
  /** The pool's attributes (shared/provider/ec2/ebs-pool.ts reads them). */
  poolAttributes: Record<string, unknown>;
  /** The instance the volume is for: it is made in that instance's availability zone. */
  instanceId: string;
}

export interface VolumeAttachmentInfo {
  instanceId: string;
  /** attaching, attached, detaching, detached. */
  state: string;
  /** The name the volume was attached under (`/dev/sdf`); NVMe instances show it under another. */
  device?: string;
}

export interface VolumeInfo {
  volumeId: string;
  /** The provider's view: creating, available, in-use, deleting, deleted, error. */
  state: string;
  model: string;
  /** The storage instance the volume was made for; '' where its tag is missing. */
  storageId: string;
  sizeGiB: number;
  availabilityZone?: string;
  attachments: VolumeAttachmentInfo[];
  /** When the provider made it (ms since the epoch): a volume made moments ago may not be recorded yet. */
  createdAt?: number;
}

/**
 * Volumes for storage instances (Juju's dynamic volume source: EBS on AWS). Every call is safe to
 * repeat: making a volume replays its token, attaching one that is attached to that instance
 * answers its device, and detaching or deleting one that is already so succeeds.
 */
export interface Volumes {
  /** The request's volume: made if no earlier call with the same attempt made it. */
  ensureVolume(request: VolumeRequest): Promise<VolumeInfo>;
  /** Attaches the volume to the instance (waiting a bounded time for it); answers the device it was attached as. */
  attachVolume(volumeId: string, instanceId: string): Promise<{ device: string }>;
  /** Detaches the volume from the instance, if it is attached to it. */
  detachVolume(volumeId: string, instanceId: string): Promise<void>;
  /** Deletes a volume no instance has attached; one already gone is fine. */
  deleteVolume(volumeId: string): Promise<void>;
  /** Every storage volume of this controller (never an instance's root volume). */
  listVolumes(controllerId: string): Promise<VolumeInfo[]>;
}

export interface Provider {
  startInstance(request: StartInstanceRequest): Promise<InstanceInfo>;
  /** Stops (terminates) instances; unknown ids are ignored, so it is safe to retry. */
  stopInstances(instanceIds: string[]): Promise<void>;
  /** All live instances tagged with this controller. */
  listInstances(controllerId: string): Promise<InstanceInfo[]>;
  /**
   * Instances of this controller whose machine agent died but which startInstance of the same
   * attempt starts again in place: the local provider's agent processes, as systemd restarts Juju's
   * agents. Absent where an instance restarts its own agent (EC2: systemd on the instance).
   */
  listDeadInstances?(controllerId: string): Promise<InstanceInfo[]>;
  /** Absent where nothing stands between a machine and the network (the local provider). */
  readonly firewall?: Firewall;
  /** Absent where storage is the machine's own disk only (the local provider: rootfs). */
  readonly volumes?: Volumes;
}
