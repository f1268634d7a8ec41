// The `local` provider: a machine is a directory on this host and a detached machine agent
// process, like Juju's local provider. Same contract as `ec2` (provider.ts): every call is safe
// to repeat, because the provisioner is a level-triggered reconciler (docs/architecture.md,
// 'Idempotent side effects').
// - startInstance for a machine and attempt whose agent is alive returns that agent (EC2's
//   ClientToken), under a per-machine lock so concurrent starts spawn one process;
// - stopInstances ignores unknown ids;
// - listInstances reads the machine directories, so a new LocalProvider on the same dataDir
//   (a restarted controller) sees the agents the old one started, and the provisioner's full
//   reconcile can reap the strays among them.
import { arch, cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { ProviderError, type InstanceInfo, type Provider, type StartInstanceRequest } from '../provider.js';
import { spawnAgent, terminateAgent } from './agent-process.js';
import {
  clearRecord,
  listMachineDirs,
  localInstanceId,
  machineDirOf,
  readRecord,
  removeMachineDir,
  writeCredential,
  writeRecord,
  type LocalInstanceRecord,
} from './machine-dir.js';
import { withMachineLock } from './machine-lock.js';
import { isProcessAlive } from './process-identity.js';

export interface LocalProviderOptions {
  /** Where machine directories live (`<dataDir>/machines/<id>/`). */
  dataDir: string;
  /** The machine agent: a program and its arguments, e.g. `['node', 'agent/machine-agent.js']`. */
  agentCommand: string[];
  /**
   * Extra environment for every agent (say, the local SQS endpoint). The controller's own
   * environment is not passed on: its credentials are not the agent's (docs/architecture.md,
   * 'Agents are least-privileged'); only what a program needs to run (PATH, HOME, locale) is.
   */
  env?: Record<string, string>;
  /** How long an agent gets to exit after SIGTERM before SIGKILL. Default 10 s. */
  stopGraceMs?: number;
  /** How long a start waits for another start or stop of the same machine. Default 30 s. */
  lockTimeoutMs?: number;
}

const PASSED_THROUGH_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT'];
const LOCAL_ADDRESS = '127.0.0.1';

const asProviderError = (e: unknown, action: string) =>
  e instanceof ProviderError ? e : new ProviderError(`${action}: ${e instanceof Error ? e.message : String(e)}`, true);

// The host is the instance: its hardware is what Juju's local provider reports too.
const hostHardware = () => `arch=${arch() === 'x64' ? 'amd64' : arch()} cores=${cpus().length} mem=${Math.round(totalmem() / 2 ** 20)}M`;

export class LocalProvider implements Provider {
  private readonly dataDir: string;
  private readonly stopGraceMs: number;
  private readonly lockTimeoutMs: number;

  constructor(private readonly options: LocalProviderOptions) {
    this.dataDir = resolve(options.dataDir);
    this.stopGraceMs = options.stopGraceMs ?? 10_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  }

  async startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    const dir = machineDirOf(this.dataDir, request.machineId);
    try {
      return await withMachineLock(dir, this.lockTimeoutMs, () => this.startLocked(dir, request));
    } catch (e) {
      throw asProviderError(e, `cannot start machine ${request.machineId}`);
    }
  }

  async stopInstances(instanceIds: string[]): Promise<void> {
    const wanted = new Set(instanceIds.filter(Boolean));
    if (wanted.size === 0) return;
    try {
      const dirs = listMachineDirs(this.dataDir).filter((dir) => wanted.has(readRecord(dir)?.instanceId ?? ''));
      await Promise.all(dirs.map((dir) => withMachineLock(dir, this.lockTimeoutMs, () => this.stopLocked(dir, wanted))));
    } catch (e) {
      throw asProviderError(e, 'cannot stop instances');
    }
  }

  async listInstances(controllerId: string): Promise<InstanceInfo[]> {
    try {
      return listMachineDirs(this.dataDir)
        .map(readRecord)
        .filter((r): r is LocalInstanceRecord => r !== undefined && r.controllerId === controllerId && isProcessAlive(r))
        .map(toInstanceInfo);
    } catch (e) {
      throw asProviderError(e, 'cannot list instances');
    }
  }

  /**
   * Like a host shutting down: stops this controller's agent processes but keeps their machine
   * directories (charm and unit agent state), so the next startInstance of the same attempt — the
   * controller resuming its machines after a restart — continues where they were.
   */
  async shutDownAgents(controllerId: string): Promise<void> {
    const records = listMachineDirs(this.dataDir)
      .map(readRecord)
      .filter((r): r is LocalInstanceRecord => r !== undefined && r.controllerId === controllerId);
    await Promise.all(records.map((r) => terminateAgent(r, this.stopGraceMs)));
  }

  private async startLocked(dir: string, request: StartInstanceRequest): Promise<InstanceInfo> {
    const existing = readRecord(dir);
    if (existing && isProcessAlive(existing)) {
      if (existing.controllerId !== request.controllerId) {
        throw new ProviderError(`machine directory ${dir} is in use by controller "${existing.controllerId}"`, false);
      }
      // The ClientToken rule: this attempt's instance already runs, so it is the answer.
      if (existing.attempt === request.attempt) return toInstanceInfo(existing);
      // A provisioner holding an old snapshot of the machine must not replace a newer attempt's
      // agent; its own error is recorded against a stale attempt, which is a no-op.
      if (existing.attempt > request.attempt) {
        throw new ProviderError(
          `machine ${request.machineId} already runs instance ${existing.instanceId} of a later provisioning attempt`,
          false,
        );
      }
      // An earlier attempt's agent was never recorded (the machine is being provisioned again
      // only when it has no instance): where EC2 would leave it as a stray for the provisioner
      // to reap, one directory per machine means it must go before the new one starts.
      await terminateAgent(existing, this.stopGraceMs);
    }
    clearRecord(dir);
    const credentialFile = writeCredential(dir, request.agent.credential);
    const instanceId = localInstanceId(request.controllerId, request.machineId, request.attempt);
    let record: LocalInstanceRecord | undefined;
    await spawnAgent({
      command: this.options.agentCommand,
      dir,
      env: this.agentEnv(request, dir, credentialFile),
      adopt: (identity) => {
        record = {
          instanceId,
          controllerId: request.controllerId,
          machineId: request.machineId,
          attempt: request.attempt,
          series: request.series,
          ...identity,
          startedAt: new Date().toISOString(),
        };
        writeRecord(dir, record);
      },
    });
    if (!record) throw new ProviderError(`cannot start machine ${request.machineId}: the agent was not recorded`, true);
    return toInstanceInfo(record);
  }

  private async stopLocked(dir: string, wanted: Set<string>): Promise<void> {
    // Read again under the lock: a start may have replaced the instance meanwhile.
    const record = readRecord(dir);
    if (!record || !wanted.has(record.instanceId)) return;
    await terminateAgent(record, this.stopGraceMs);
    removeMachineDir(dir);
  }

  private agentEnv(request: StartInstanceRequest, dir: string, credentialFile: string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of PASSED_THROUGH_ENV) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return {
      ...env,
      ...this.options.env,
      DROVER_CONTROLLER_ID: request.controllerId,
      DROVER_MACHINE_ID: request.machineId,
      DROVER_API_URL: request.agent.apiUrl,
      DROVER_AGENT_CREDENTIAL: request.agent.credential,
      // The same credential as a file: an agent can read it there and clear its environment.
      DROVER_AGENT_CREDENTIAL_FILE: credentialFile,
      DROVER_QUEUE_URL: request.agent.queueUrl,
      DROVER_MACHINE_DIR: dir,
    };
  }
}

function toInstanceInfo(record: LocalInstanceRecord): InstanceInfo {
  return {
    instanceId: record.instanceId,
    machineId: record.machineId,
    state: 'running',
    hardware: hostHardware(),
    addresses: [LOCAL_ADDRESS],
  };
}
