// Provisioner test support: a provider wrapper for fault injection, machine queues on the test
// file's SQS server, and the deps the provisioner runs with (tiny retry delays instead of Juju's 10 s).
import { randomUUID } from 'node:crypto';
import { GetQueueUrlCommand, ListQueueTagsCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isQueueMissing, queueName } from '#shared/messaging/machine-queues.js';
import { INSTANCE_TAG } from '#shared/messaging/queue-instance-tag.js';
import { sqsMachineQueues } from '#shared/provisioner/sqs-machine-queues.js';
import type { InstanceInfo, Provider, ProviderError, StartInstanceRequest } from '#shared/provider/provider.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import type { MachineQueues, ProvisionerDeps } from '#shared/provisioner/deps.js';
import type { Store } from '#shared/state/engine/store.js';

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

/**
 * Machine queues on a real SQS server (fauxqs, test/support/sqs.ts), as the provisioner has them
 * (sqsMachineQueues), under a controller id of their own so that tests sharing a server never see
 * each other's queues. `failing` makes one machine's queue creation fail, as an SQS outage would.
 */
export class TestQueues implements MachineQueues {
  readonly failing = new Set<string>();
  private readonly real: MachineQueues;

  constructor(
    private readonly sqs: SQSClient,
    readonly controllerId = `queues-${randomUUID().slice(0, 8)}`,
  ) {
    this.real = sqsMachineQueues(sqs, controllerId);
  }

  async ensure(model: string, machineId: string): Promise<string> {
    if (this.failing.has(machineId)) throw new Error(`cannot create queue of machine ${machineId}`);
    return this.real.ensure(model, machineId);
  }

  remove(model: string, machineId: string): Promise<void> {
    return this.real.remove(model, machineId);
  }

  admitOnly(queueUrl: string, instanceId: string): Promise<void> {
    return this.real.admitOnly(queueUrl, instanceId);
  }

  /** The instance the machine's queue admits (its tag), if any. */
  async admits(machineId: string, model = 'default'): Promise<string | undefined> {
    const { QueueUrl } = await this.sqs.send(new GetQueueUrlCommand({ QueueName: queueName(this.controllerId, model, machineId) }));
    const { Tags } = await this.sqs.send(new ListQueueTagsCommand({ QueueUrl }));
    return Tags?.[INSTANCE_TAG];
  }

  /** Whether the machine's queue exists on the server (asked of a client with no URL cache). */
  async exists(machineId: string, model = 'default'): Promise<boolean> {
    try {
      await this.sqs.send(new GetQueueUrlCommand({ QueueName: queueName(this.controllerId, model, machineId) }));
      return true;
    } catch (e) {
      if (isQueueMissing(e)) return false;
      throw e;
    }
  }
}

export function provisionerDeps(
  store: Store,
  provider: Provider,
  queues: MachineQueues,
  overrides: Partial<ProvisionerDeps> = {},
): ProvisionerDeps {
  return {
    store,
    provider,
    queues,
    credentials: derivedAgentCredentials(newAgentCredentialKey()),
    controllerId: CONTROLLER_ID,
    apiUrl: API_URL,
    policy: { startAttempts: 3, retryDelayMs: 1, transientErrorRetryMs: 60_000, missingInstanceGraceMs: 0, concurrency: 4 },
    ...overrides,
  };
}
