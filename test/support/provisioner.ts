// Provisioner test doubles: a provider wrapper for fault injection, in-memory machine queues, and
// the deps the provisioner runs with (tiny retry delays instead of Juju's 10 s).
import type { InstanceInfo, Provider, ProviderError, StartInstanceRequest } from '../../shared/provider/provider.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '../../shared/provisioner/agent-credentials.js';
import type { MachineQueues, ProvisionerDeps } from '../../shared/provisioner/deps.js';
import type { Store } from '../../shared/state/store.js';

export const CONTROLLER_ID = 'test-ctl';
export const API_URL = 'http://127.0.0.1:1/api';

/** Wraps a provider: fails starts on demand, runs a hook after a start, adds fake instances to listings. */
export class FaultyProvider implements Provider {
  startCalls = 0;
  readonly stopped: string[] = [];
  /** Thrown, one per call, by the next startInstance calls. */
  readonly startFailures: ProviderError[] = [];
  /** Runs after a successful start, before the provisioner sees the result. */
  afterStart?: (request: StartInstanceRequest, info: InstanceInfo) => Promise<void>;
  /** Reported by listInstances beside the real ones (stopping them only records the call). */
  readonly phantoms: InstanceInfo[] = [];

  constructor(readonly inner: Provider) {}

  async startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    this.startCalls++;
    const failure = this.startFailures.shift();
    if (failure) throw failure;
    const info = await this.inner.startInstance(request);
    await this.afterStart?.(request, info);
    return info;
  }

  async stopInstances(instanceIds: string[]): Promise<void> {
    this.stopped.push(...instanceIds);
    await this.inner.stopInstances(instanceIds);
  }

  async listInstances(controllerId: string): Promise<InstanceInfo[]> {
    const stopped = new Set(this.stopped);
    return [...(await this.inner.listInstances(controllerId)), ...this.phantoms.filter((p) => !stopped.has(p.instanceId))];
  }
}

export class MemoryQueues implements MachineQueues {
  readonly live = new Set<string>();
  readonly removed: string[] = [];
  /** Machines whose queue cannot be created (SQS down, say). */
  readonly failing = new Set<string>();

  async ensure(machineId: string): Promise<string> {
    if (this.failing.has(machineId)) throw new Error(`cannot create queue of machine ${machineId}`);
    this.live.add(machineId);
    return `http://queues.test/${machineId}`;
  }

  async remove(machineId: string): Promise<void> {
    this.live.delete(machineId);
    this.removed.push(machineId);
  }
}

export function provisionerDeps(store: Store, provider: Provider, overrides: Partial<ProvisionerDeps> = {}): ProvisionerDeps {
  return {
    store,
    provider,
    queues: new MemoryQueues(),
    credentials: derivedAgentCredentials(newAgentCredentialKey()),
    controllerId: CONTROLLER_ID,
    apiUrl: API_URL,
    policy: { startAttempts: 3, retryDelayMs: 1, transientErrorRetryMs: 60_000, missingInstanceGraceMs: 0, concurrency: 4 },
    ...overrides,
  };
}
