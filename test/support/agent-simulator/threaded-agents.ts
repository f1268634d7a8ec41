// The controller's side of the simulated agents' thread (agents-thread.ts): a Provider whose
// instances start in that thread, so the provisioner starts simulated machines as it starts any
// instance, and what the bench asks of the agents (hooks that ran, agents that ended, receives).
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { InstanceInfo, Provider, StartInstanceRequest } from '#shared/provider/provider.js';
import type { AgentsThreadInit, AgentsThreadStats } from './agents-thread.js';
import { reportSends } from './shared-hint-polls.js';
import { SimulatorThread } from './thread-rpc.js';

export interface AgentsThreadOptions extends Omit<AgentsThreadInit, 'echoLogs'> {
  /** Every hook that ran and exited 0, with when (Date.now() in the agents' thread). */
  onHookRan?: (hook: string, unit: string, at: number) => void;
  logEcho?: (line: string) => void;
}

export class AgentsThread implements Provider {
  private constructor(private readonly thread: SimulatorThread) {}

  static async start(options: AgentsThreadOptions): Promise<AgentsThread> {
    const { onHookRan, logEcho, ...init } = options;
    const thread = await SimulatorThread.start('./agents-thread.ts', {
      ...init,
      echoLogs: logEcho !== undefined,
    } satisfies AgentsThreadInit);
    if (onHookRan)
      thread.on('hook-ran', (d) => {
        const { hook, unit, at } = d as { hook: string; unit: string; at: number };
        onHookRan(hook, unit, at);
      });
    if (logEcho) thread.on('log', (line) => logEcho(line as string));
    return new AgentsThread(thread);
  }

  /** Tells the agents' thread of every message `client` sends, so a waiting agent's queue is polled at once. */
  watchSends(client: SQSClient): void {
    reportSends(client, (queueUrl) => this.thread.post('heard', queueUrl));
  }

  startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    return this.thread.call('startInstance', request);
  }

  stopInstances(instanceIds: string[]): Promise<void> {
    return this.thread.call('stopInstances', instanceIds);
  }

  listInstances(controllerId: string): Promise<InstanceInfo[]> {
    return this.thread.call('listInstances', controllerId);
  }

  /** Agents whose run ended by itself (refused, dead, or an error), with why. */
  ended(): Promise<{ machine: string; outcome: string }[]> {
    return this.thread.call('ended');
  }

  stats(): Promise<AgentsThreadStats> {
    return this.thread.call('stats');
  }

  /** The agents' thread's CPU time so far, in seconds. */
  cpuSeconds(): Promise<number> {
    return this.thread.cpuSeconds();
  }

  async stop(): Promise<void> {
    await this.thread.call('stop');
    await this.thread.terminate();
  }
}
