// The provisioner's step for one storage instance of a volume pool (`ebs` on AWS): Juju's storage
// provisioner (https://github.com/juju/juju/tree/3.6/internal/worker/storageprovisioner) as one
// level-triggered decision. It takes the storage instance as state has it and the instance of the
// machine its unit is on, acts on the provider (shared/provider/provider.ts, Volumes), and answers
// what to record: the caller commits that, asserting the storage instance unchanged, as
// reconcile-machine.ts records an instance. Every action is safe to repeat (the provider's calls
// are), so a step cut short, or run twice at once, converges at the next run.
//
// - Alive or Dying, with a unit on a machine that has an instance: the volume is made (once per
//   attempt: its token) and attached there; what to record is the volume, its device and the instance.
// - Alive or Dying, with no such instance (its unit is gone, or the storage was detached): a
//   volume still attached is detached; the volume stays, as persistent storage does in Juju.
// - Dead (destroyed): the volume is detached and deleted; the caller may then remove the storage instance.
import type { Life } from '../domain/life.js';
import { errorMessage } from '../domain/errors.js';
import { ProviderError, type Volumes } from '../provider/provider.js';

/** A storage instance as the storage contract shapes it, with what the step needs beside it. */
export interface VolumeStorage {
  /** `<name>/<n>`. */
  id: string;
  /** The model's key. */
  model: string;
  /** MiB. */
  size: number;
  life: Life;
  volume?: RecordedVolume;
  /** The pool's attributes (for `ebs`, none: shared/provider/ec2/ebs-pool.ts gives the defaults). */
  poolAttributes: Record<string, unknown>;
  /** Counts provisioning attempts (0 until a user retries a failed one): part of the volume's token. */
  attempt?: number;
}

/** What the storage instance records of its volume (the contract's `volume`). */
export interface RecordedVolume {
  volumeId: string;
  device?: string;
  /** The instance it is attached to. */
  attachedTo?: string;
}

export interface VolumeStepInput {
  controllerId: string;
  storage: VolumeStorage;
  /**
   * The instance of the machine of the unit the storage is attached to (its attachment Alive or
   * Dying); absent when it has none, or its machine has no instance yet.
   */
  instanceId?: string;
}

/** What the caller commits. */
export type VolumeOutcome =
  /** Nothing differs from what state records. */
  | { kind: 'unchanged' }
  /** Record this as the storage instance's volume. */
  | { kind: 'record'; volume: RecordedVolume }
  /** The Dead storage's volume is gone: the storage instance may be removed. */
  | { kind: 'deleted' }
  /**
   * The provider refused; `volume`, when present, is what was made before it did and must be
   * recorded all the same, so the volume is known (and never taken for an orphan).
   */
  | { kind: 'error'; error: ProviderError; volume?: RecordedVolume };

const sameVolume = (a: RecordedVolume | undefined, b: RecordedVolume): boolean =>
  a?.volumeId === b.volumeId && a.device === b.device && a.attachedTo === b.attachedTo;

const asProviderError = (e: unknown): ProviderError => (e instanceof ProviderError ? e : new ProviderError(errorMessage(e), true));

export async function provisionVolume(volumes: Volumes, input: VolumeStepInput): Promise<VolumeOutcome> {
  const { storage, instanceId } = input;
  const recorded = storage.volume;
  let known: RecordedVolume | undefined = recorded;
  try {
    if (storage.life === 'dead') {
      if (!recorded) return { kind: 'deleted' };
      if (recorded.attachedTo) await volumes.detachVolume(recorded.volumeId, recorded.attachedTo);
      await volumes.deleteVolume(recorded.volumeId);
      return { kind: 'deleted' };
    }
    if (!instanceId) {
      if (!recorded?.attachedTo) return { kind: 'unchanged' };
      await volumes.detachVolume(recorded.volumeId, recorded.attachedTo);
      return { kind: 'record', volume: { volumeId: recorded.volumeId } };
    }
    if (recorded?.attachedTo === instanceId && recorded.device) return { kind: 'unchanged' };
    if (recorded?.attachedTo && recorded.attachedTo !== instanceId) {
      // Its unit moved on (a detached storage attached to another unit): off the old instance first.
      await volumes.detachVolume(recorded.volumeId, recorded.attachedTo);
      known = { volumeId: recorded.volumeId };
    }
    if (!known) {
      const made = await volumes.ensureVolume({
        controllerId: input.controllerId,
        model: storage.model,
        storageId: storage.id,
        attempt: storage.attempt ?? 0,
        sizeMiB: storage.size,
        poolAttributes: storage.poolAttributes,
        instanceId,
      });
      known = { volumeId: made.volumeId };
    }
    const { device } = await volumes.attachVolume(known.volumeId, instanceId);
    const volume: RecordedVolume = { volumeId: known.volumeId, device, attachedTo: instanceId };
    return sameVolume(recorded, volume) ? { kind: 'unchanged' } : { kind: 'record', volume };
  } catch (e) {
    const changed = known && !sameVolume(recorded, known);
    return { kind: 'error', error: asProviderError(e), ...(changed ? { volume: known } : {}) };
  }
}
