// A Provider whose instances are machine agents inside this process: the real MachineAgent
// (agent/machine/machine-agent.ts), with its real unit agents, API client (each machine signs with
// the key the provisioner handed it, as the local provider's agent processes do) and hint
// receiver, where only the hooks run in-process (in-process-hooks.ts) and the SQS receives are
// shared (shared-hint-polls.ts). The provisioner starts them as it starts any instance, so
// deploying N units on N machines brings up N simulated agents: thousands on a host where a
// process per machine (about 70 MB each) would not fit.
//
// Kept as the local provider keeps its promises (shared/provider/local/local-provider.ts): a start
// of the attempt already running returns that instance; a later attempt replaces it; stopping an
// unknown id does nothing.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_HEARTBEAT_SECONDS, DEFAULT_RESYNC_SECONDS } from '../../../agent/config.js';
import type { HttpSend } from '../../../agent/http.js';
import { MachineAgent, type MachineAgentOutcome } from '../../../agent/machine/machine-agent.js';
import type { HookRunner } from '../../../agent/uniter/hook-process.js';
import type { InstanceInfo, Provider, StartInstanceRequest } from '#shared/provider/provider.js';
import type { SharedHintPolls } from './shared-hint-polls.js';
import { errorMessage } from '#shared/domain/errors.js';

export interface SimulatedMachinesOptions {
  /** Where machine directories go (units' charm and state, as on a real machine). */
  dataDir: string;
  /** The SQS server's endpoint, and a client on it for what is not a receive (deletes). */
  sqsEndpoint: string;
  sqs: SQSClient;
  hints: SharedHintPolls;
  hookRunner: HookRunner;
  /** Every agent's log line (the real agent prints them); dropped when absent. */
  logEcho?: (line: string) => void;
  /**
   * What every agent sends its API requests and downloads with: one pool of kept-alive connections
   * for them all. Real agents each hold their own connection on their own host; here thousands
   * share one process's file descriptors (both ends: the API server is in this process too).
   */
  http: HttpSend;
}

interface Simulated {
  agent: MachineAgent;
  attempt: number;
  controllerId: string;
  info: InstanceInfo;
  outcome: Promise<MachineAgentOutcome | Error>;
}

const TOOL_SCRIPT = fileURLToPath(new URL('../../../agent/hook-tools/hook-tool.bash', import.meta.url));

export class SimulatedMachines implements Provider {
  private readonly running = new Map<string, Simulated>();

  constructor(private readonly options: SimulatedMachinesOptions) {}

  /** Machine agents running now. */
  get size(): number {
    return this.running.size;
  }

  async startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    const key = `${request.model}/${request.machineId}`;
    const existing = this.running.get(key);
    if (existing?.attempt === request.attempt) return existing.info;
    if (existing) await this.stop(key, existing);
    const machineDir = join(this.options.dataDir, request.model, `machine-${request.machineId}`);
    mkdirSync(machineDir, { recursive: true, mode: 0o700 });
    const agent = new MachineAgent({
      // The agent's own client from its config (the machine's key signs every request), sending
      // through the shared pool.
      http: this.options.http,
      config: {
        controllerId: request.controllerId,
        model: request.model,
        machineId: request.machineId,
        apiUrl: request.agent.apiUrl,
        ...(request.agent.credential !== undefined ? { credential: request.agent.credential } : {}),
        queueUrl: request.agent.queueUrl,
        sqsEndpoint: this.options.sqsEndpoint,
        region: 'local',
        authorizedKeysFile: join(machineDir, '.ssh', 'authorized_keys'),
        machineDir,
        storage: { dir: join(machineDir, 'storage'), provider: 'local' },
        resyncMs: DEFAULT_RESYNC_SECONDS * 1000,
        heartbeatMs: DEFAULT_HEARTBEAT_SECONDS * 1000,
      },
      toolScript: TOOL_SCRIPT,
      sqs: this.options.hints.clientFor(this.options.sqs),
      hookRunner: this.options.hookRunner,
      logEcho: this.options.logEcho ?? (() => undefined),
    });
    const info: InstanceInfo = {
      instanceId: `sim-${request.controllerId}-${request.model}-${request.machineId}-${request.attempt}`,
      model: request.model,
      machineId: request.machineId,
      state: 'running',
      addresses: ['127.0.0.1'],
    };
    const outcome = agent.run().catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    this.running.set(key, { agent, attempt: request.attempt, controllerId: request.controllerId, info, outcome });
    return info;
  }

  async stopInstances(instanceIds: string[]): Promise<void> {
    const wanted = new Set(instanceIds);
    await Promise.all([...this.running].filter(([, s]) => wanted.has(s.info.instanceId)).map(([key, s]) => this.stop(key, s)));
  }

  async listInstances(controllerId: string): Promise<InstanceInfo[]> {
    return [...this.running.values()].filter((s) => s.controllerId === controllerId).map((s) => s.info);
  }

  /** Agents whose run ended by itself (refused, dead, or an error), with why. */
  async ended(): Promise<{ machine: string; outcome: string }[]> {
    const settled = await Promise.all(
      [...this.running].map(async ([key, s]) => {
        const outcome = await Promise.race([s.outcome, Promise.resolve(undefined)]);
        return outcome === undefined ? undefined : { machine: key, outcome: errorMessage(outcome) };
      }),
    );
    return settled.filter((e): e is { machine: string; outcome: string } => e !== undefined);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map(([key, s]) => this.stop(key, s)));
  }

  private async stop(key: string, simulated: Simulated): Promise<void> {
    this.running.delete(key);
    simulated.agent.stop();
    await simulated.outcome;
  }
}
