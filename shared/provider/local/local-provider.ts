// The `local` provider: a machine is a directory on this host and a detached machine agent
// process, like Juju's local provider. Same contract as `ec2` (provider.ts): every call is safe
// to repeat, because the provisioner is a level-triggered reconciler (docs/architecture.md,
// 'Idempotent side effects').
// - startInstance for a machine and attempt whose agent is alive returns that agent (EC2's
//   ClientToken), under a per-machine lock so concurrent starts spawn one process; one whose
//   agent died starts it again, as systemd restarts Juju's agents: same instance id and directory,
//   whatever the dead agent left in its process group killed first, and after a growing delay if
//   it keeps dying (restart-backoff.ts); listDeadInstances names them for the provisioner;
// - stopInstances ignores unknown ids;
// - listInstances reads the machine directories, so a new LocalProvider on the same dataDir
//   (a restarted controller) sees the agents the old one started, and the provisioner's full
//   reconcile can reap the strays among them;
// - no firewall (Provider.firewall is absent, so the reconcile skips it): a local machine is an
//   agent process on this host, its workloads listen on 127.0.0.1 beside it, and there is no
//   security group to open; `expose` only records the application's flag.
import { arch, cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { ProviderError, type InstanceInfo, type Provider, type StartInstanceRequest } from '../provider.js';
import { killLeftoverGroup, spawnAgent, terminateAgent } from './agent-process.js';
import {
  clearRecord,
  listMachineDirs,
  localInstanceId,
  machineDirOf,
  modelOfRecord,
  readRecord,
  removeMachineDir,
  writeRecord,
  type LocalInstanceRecord,
} from './machine-dir.js';
import { withMachineLock } from './machine-lock.js';
import { isProcessAlive } from './process-identity.js';
import { decideRestart, forgetRestarts, RESTART_POLICY, type RestartPolicy } from './restart-backoff.js';
import { errorMessage } from '../../domain/errors.js';

export interface LocalProviderOptions {
  /** Where machine directories live (`<dataDir>/machines/<id>/`, another model's under `<dataDir>/models/`: machine-dir.ts). */
  dataDir: string;
  /** The machine agent: a program and its arguments, e.g. `['node', 'agent/machine-agent.js']`. */
  agentCommand: string[];
  /**
   * Extra environment for every agent (say, the local SQS endpoint). The controller's own
   * environment is not passed on: its credentials are not the agent's (docs/architecture.md,
   * 'Agents are least-privileged'); only what a program needs to run (PATH, HOME, locale) is.
   */
  env?: Record<string, string>;
  /** Environment for one agent alone (its access key to its own queue). */
  agentEnv?: (request: StartInstanceRequest) => Record<string, string>;
  /** How long an agent gets to exit after SIGTERM before SIGKILL. Default 10 s. */
  stopGraceMs?: number;
  /** How long a start waits for another start or stop of the same machine. Default 30 s. */
  lockTimeoutMs?: number;
  /** When a dead agent is started again (restart-backoff.ts); tests shorten it. */
  restartPolicy?: RestartPolicy;
}

const PASSED_THROUGH_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT'];
const LOCAL_ADDRESS = '127.0.0.1';

const asProviderError = (e: unknown, action: string) =>
  e instanceof ProviderError ? e : new ProviderError(`${action}: ${errorMessage(e)}`, true);

// The host is the instance: its hardware is what Juju's local provider reports too.
const hostHardware = () => `arch=${arch() === 'x64' ? 'amd64' : arch()} cores=${cpus().length} mem=${Math.round(totalmem() / 2 ** 20)}M`;

/** A local agent has no identity but the key it is handed; a start without one is refused. */
function localAgentKey(request: StartInstanceRequest): string {
  if (!request.agent.credential)
    throw new ProviderError(`cannot start machine ${request.machineId}: a local machine agent needs its key`, false);
  return request.agent.credential;
}

export class LocalProvider implements Provider {
  private readonly dataDir: string;
  private readonly stopGraceMs: number;
  private readonly lockTimeoutMs: number;
  private readonly restartPolicy: RestartPolicy;

  constructor(private readonly options: LocalProviderOptions) {
    this.dataDir = resolve(options.dataDir);
    this.stopGraceMs = options.stopGraceMs ?? 10_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.restartPolicy = options.restartPolicy ?? RESTART_POLICY;
  }

  async startInstance(request: StartInstanceRequest): Promise<InstanceInfo> {
    const dir = machineDirOf(this.dataDir, request.machineId, request.model);
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

  /**
   * This controller's instances whose agent process has died: startInstance of the same attempt
   * starts it again in the same machine directory (shared/provisioner/revive-agents.ts).
   */
  async listDeadInstances(controllerId: string): Promise<InstanceInfo[]> {
    try {
      return listMachineDirs(this.dataDir)
        .map(readRecord)
        .filter((r): r is LocalInstanceRecord => r !== undefined && r.controllerId === controllerId && !isProcessAlive(r))
        .map((r) => ({ ...toInstanceInfo(r), state: 'stopped' }));
    } catch (e) {
      throw asProviderError(e, 'cannot list instances');
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
    const dirs = listMachineDirs(this.dataDir).filter((dir) => readRecord(dir)?.controllerId === controllerId);
    await Promise.all(
      dirs.map(async (dir) => {
        await terminateAgent(readRecord(dir)!, this.stopGraceMs);
        forgetRestarts(dir); // stopped, not dead: the next start is no restart after a crash
      }),
    );
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
    } else if (existing) {
      if (existing.controllerId === request.controllerId && existing.attempt === request.attempt) {
        // This attempt's agent died: start it again, unless it keeps dying (restart-backoff.ts).
        const decision = decideRestart(dir, existing, Date.now(), this.restartPolicy);
        if (!decision.restart) {
          throw new ProviderError(
            `machine agent exited ${decision.quickDeaths} times in a row within ${this.restartPolicy.stableRunMs / 1000} s of starting; ` +
              `next start at ${new Date(decision.restartAt).toISOString()} (see ${dir}/agent.log)`,
            true,
          );
        }
      }
      killLeftoverGroup(existing);
    }
    clearRecord(dir);
    const instanceId = localInstanceId(request.controllerId, request.model, request.machineId, request.attempt);
    let record: LocalInstanceRecord | undefined;
    await spawnAgent({
      command: this.options.agentCommand,
      dir,
      env: this.agentEnv(request, dir),
      // On a pipe, not in the environment (which any process of this user reads in /proc) nor in
      // a file: the controller derives it again for every start, so nothing keeps it on disk.
      stdin: `${localAgentKey(request)}\n`,
      adopt: (identity) => {
        record = {
          instanceId,
          controllerId: request.controllerId,
          model: request.model,
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

  private agentEnv(request: StartInstanceRequest, dir: string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of PASSED_THROUGH_ENV) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return {
      ...env,
      ...this.options.env,
      ...this.options.agentEnv?.(request),
      DROVER_CONTROLLER_ID: request.controllerId,
      DROVER_MODEL: request.model,
      DROVER_MACHINE_ID: request.machineId,
      DROVER_API_URL: request.agent.apiUrl,
      DROVER_AGENT_CREDENTIAL_STDIN: '1',
      DROVER_QUEUE_URL: request.agent.queueUrl,
      DROVER_MACHINE_DIR: dir,
    };
  }
}

function toInstanceInfo(record: LocalInstanceRecord): InstanceInfo {
  return {
    instanceId: record.instanceId,
    model: modelOfRecord(record),
    machineId: record.machineId,
    state: 'running',
    hardware: hostHardware(),
    addresses: [LOCAL_ADDRESS],
  };
}
