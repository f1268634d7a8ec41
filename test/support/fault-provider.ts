// A provider double for the crash matrix, with EC2's contract (shared/provider/provider.ts): a
// start carries an idempotency token per machine and attempt (EC2's ClientToken), so a repeated
// start returns the same instance; stopping an unknown or stopped instance is a no-op. It keeps
// in memory what a test must inspect: every instance ever created, which are live, and what each
// agent was started with (its queue). EC2 has no local server, and the local provider starts a
// process per machine, too slow for hundreds of matrix runs on two cores; its own idempotency is
// shown by test/integration/local-provider.test.ts.
import type { InstanceInfo, Provider, StartInstanceRequest } from '#shared/provider/provider.js';

export interface FakeInstance {
  info: InstanceInfo;
  request: StartInstanceRequest;
  live: boolean;
}

export class MemoryProvider implements Provider {
  /** Every instance ever created, by id, in creation order. */
  readonly instances = new Map<string, FakeInstance>();
  private readonly byToken = new Map<string, string>();

  async startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    const token = `${request.controllerId}/${request.machineId}/${request.attempt}`;
    const known = this.byToken.get(token);
    if (known) return this.instances.get(known)!.info;
    const info: InstanceInfo = {
      instanceId: `i-${request.machineId}-${request.attempt}`,
      model: request.model,
      machineId: request.machineId,
      state: 'running',
      addresses: ['10.0.0.1'],
    };
    this.byToken.set(token, info.instanceId);
    this.instances.set(info.instanceId, { info, request, live: true });
    return info;
  }

  async stopInstances(instanceIds: string[]): Promise<void> {
    for (const id of instanceIds) {
      const instance = this.instances.get(id);
      if (instance) instance.live = false;
    }
  }

  async listInstances(controllerId: string): Promise<InstanceInfo[]> {
    return this.live()
      .filter((i) => i.request.controllerId === controllerId)
      .map((i) => i.info);
  }

  live(): FakeInstance[] {
    return [...this.instances.values()].filter((i) => i.live);
  }
}
