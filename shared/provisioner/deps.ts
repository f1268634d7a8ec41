// What the provisioner works with. Lambda builds it from its environment
// (functions/provisioner/env.ts), the local controller from its own config, tests with the local
// provider and DynamoDB Local; the reconcile logic is the same in all three.
import { DEFAULT_MODEL_KEY } from '../domain/models.js';
import type { Provider } from '../provider/provider.js';
import { storeForModel, type Store } from '../state/engine/store.js';
import type { AgentCredentials } from './agent-credentials.js';
import type { StorageClaim } from './reap-volumes.js';

/**
 * Each machine's SQS queue (shared/messaging/machine-queues.ts on AWS and locally), named by its
 * model's key and its id: machine ids repeat across models.
 */
export interface MachineQueues {
  /** Creates the machine's queue if missing; returns its URL. */
  ensure(model: string, machineId: string): Promise<string>;
  /** Deletes the machine's queue; a missing queue is fine. */
  remove(model: string, machineId: string): Promise<void>;
  /** Lets only the instance's agent receive from the queue at `queueUrl`; safe to repeat. */
  admitOnly(queueUrl: string, instanceId: string): Promise<void>;
}

export interface ProvisionerPolicy {
  /** StartInstance calls per reconcile before a transient error is recorded (Juju 2.9: 10). */
  startAttempts: number;
  /** Pause between them (Juju 2.9: 10 s). */
  retryDelayMs: number;
  /**
   * A machine whose recorded provisioning error is transient is tried again once the error is this
   * old (Juju polls machines with transient errors every minute); non-transient errors wait for
   * retry-provisioning.
   */
  transientErrorRetryMs: number;
  /**
   * An instance recorded less than this before the provider was listed is not declared missing:
   * DescribeInstances is eventually consistent and may not show an instance RunInstances just made.
   */
  missingInstanceGraceMs: number;
  /** Machines reconciled at once, by a stream batch or the full reconcile. */
  concurrency: number;
  /**
   * A volume made less than this before the provider was listed is never taken for an orphan: its
   * storage instance records it only once the step that made it returns (reap-volumes.ts).
   */
  orphanVolumeGraceMs: number;
}

export const DEFAULT_POLICY: ProvisionerPolicy = {
  startAttempts: 10,
  retryDelayMs: 10_000,
  transientErrorRetryMs: 60_000,
  missingInstanceGraceMs: 60_000,
  concurrency: 8,
  orphanVolumeGraceMs: 600_000,
};

export interface ProvisionerLog {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export const silentLog: ProvisionerLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface ProvisionerDeps {
  store: Store;
  provider: Provider;
  queues: MachineQueues;
  /**
   * Where machine keys come from, for a provider whose instances have no identity of their own
   * (the local controller); absent on AWS, where agents sign with their instance role.
   */
  credentials?: AgentCredentials;
  /** Tags instances, so that strays of this controller can be found. */
  controllerId: string;
  /** The API address agents are given. */
  apiUrl: string;
  policy?: Partial<ProvisionerPolicy>;
  log?: ProvisionerLog;
  /**
   * The storage instances of the models given, as the volume reaper needs them (reap-volumes.ts).
   * Absent: volumes are never reaped, since without state every volume would look orphaned.
   */
  storageClaims?: (stores: Store[]) => Promise<StorageClaim[]>;
  /** Replaced in tests that must not wait. */
  sleep?: (ms: number) => Promise<void>;
}

export const policyOf = (deps: ProvisionerDeps): ProvisionerPolicy => ({ ...DEFAULT_POLICY, ...deps.policy });
export const logOf = (deps: ProvisionerDeps): ProvisionerLog => deps.log ?? silentLog;
export const sleepOf = (deps: ProvisionerDeps) => deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

/**
 * How reports name a machine: machine ids repeat across models, so another model's carries its
 * model's key; a `default` machine is named by its id, as before there were many models.
 */
export const machineLabel = (model: string, machineId: string) => (model === DEFAULT_MODEL_KEY ? machineId : `${model}:${machineId}`);

/**
 * The same provisioner, for the model whose key is `model`: everything it does to a machine (its
 * reads, its queue, its instance) is that model's, as the store says.
 */
export const provisionerForModel = (deps: ProvisionerDeps, model: string): ProvisionerDeps => ({
  ...deps,
  store: storeForModel(deps.store, model),
});
