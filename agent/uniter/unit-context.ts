// What one unit agent's steps share: its dependencies, the state it keeps in its unit directory,
// and the services that outlive a step (leadership, relation members, statuses, the tool
// server). The loop (uniter.ts) decides; each step module (steps/) carries out one kind of step
// with this context, as Juju's operations each take the uniter's callbacks and state
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/operation/factory.go).
import { join } from 'node:path';
import type { Unit } from '#shared/domain/entities.js';
import type { AgentApi } from '../api-client.js';
import type { CharmFetcher } from '../charm-cache.js';
import type { Clock } from '../clock.js';
import type { ToolServer } from '../hook-tools/tool-server.js';
import type { AgentLog } from '../log/agent-log.js';
import type { MachineStorage } from '../storage/machine-storage.js';
import { Signal, type Mutex } from '../signal.js';
import type { AgentView, ViewSource } from '../view.js';
import type { Step } from './decide.js';
import type { HookRunner } from './hook-process.js';
import { failureData, hookName, type Hook } from './hooks.js';
import { LeadershipTracker } from './leadership.js';
import { saveState, type LocalState } from './local-state.js';
import { RelationMembers } from './relation-members.js';
import { SecretSchedule } from './secret-schedule.js';
import type { UnitReporter } from './unit-reporter.js';

export interface SubordinateDeployer {
  /** Deploys and removes the principal's subordinates; true if it changed anything. */
  reconcile(principal: Unit, view: AgentView): Promise<boolean>;
}

export interface UniterDeps {
  unitName: string;
  machineId: string;
  unitDir: string;
  api: AgentApi;
  log: AgentLog;
  view: ViewSource;
  hookLock: Mutex;
  toolsDir: string;
  apiAddresses: string[];
  /** This host's address, when state knows none for the unit or machine. */
  hostAddress: string;
  /** PATH, HOME and the like for hooks. */
  baseEnv: Record<string, string | undefined>;
  subordinates?: SubordinateDeployer;
  /** A charm archive by its sha256, from the machine's cache or the controller. */
  fetchCharm: CharmFetcher;
  /** The charm URL the deployer unpacked into the charm directory (its deployed.json). */
  deployedCharmUrl?: string;
  /** Runs a hook's executable; a child process unless the agent simulator runs hooks in-process. */
  hookRunner?: HookRunner;
  /**
   * The unit's reports (statuses, charm URL, log lines): the machine agent's, kept while the unit
   * is deployed, so a report not yet taken survives a restart of this unit agent.
   */
  reporter: UnitReporter;
  /** Times update-status, lease renewals and back-offs (agent/clock.ts). */
  clock: Clock;
  /** Makes the unit's storage ready on the machine, and lets it go (agent/storage/machine-storage.ts). */
  machineStorage: MachineStorage;
}

/** A step that does something (done and wait are the loop's own). */
export type ExecutableStep = Exclude<Step, { kind: 'done' | 'wait' }>;
export type StepOf<K extends ExecutableStep['kind']> = Extract<ExecutableStep, { kind: K }>;

export const MODULE = 'juju.worker.uniter';
export const OPERATION = 'juju.worker.uniter.operation';

export class UnitContext {
  readonly signal: Signal;
  readonly members = new RelationMembers();
  readonly leadership: LeadershipTracker;
  readonly secrets: SecretSchedule;
  readonly logger;
  readonly status: UnitReporter;
  local!: LocalState;
  stopping = false;
  /** Process shutdown: a hook killed with us stays in flight, to be treated as failed on return. */
  shuttingDown = false;
  /** The charm URL reported (it rides on the next report): what state will say, without reading it again. */
  reportedCharmUrl?: string;
  /** The workload version this agent last committed (application-version-set). */
  workloadVersion?: string;
  /** Called when update-status has run: its timer starts again. */
  updateStatusRan: () => void = () => undefined;

  constructor(
    readonly deps: UniterDeps,
    /** Serves the hook tools of this unit's hooks and actions. */
    readonly tools: ToolServer,
  ) {
    this.logger = deps.log.for(deps.unitName);
    this.status = deps.reporter;
    this.signal = new Signal(deps.clock);
    this.leadership = new LeadershipTracker(deps.api, deps.unitName, deps.clock);
    this.secrets = new SecretSchedule(deps.api, deps.unitName, deps.clock);
  }

  get charmDir(): string {
    return join(this.deps.unitDir, 'charm');
  }

  save(next: LocalState): void {
    this.local = next;
    saveState(this.deps.unitDir, next);
  }

  /** The unit's private and public addresses: its own, else its machine's, else this host's. */
  addresses(view: AgentView | undefined): { private: string; public: string } {
    const unit = view?.units.find((u) => u.name === this.deps.unitName);
    const machineAddress = view?.machine.addresses[0];
    const privateAddress = unit?.privateAddress ?? machineAddress ?? this.deps.hostAddress;
    return { private: privateAddress, public: unit?.publicAddress ?? machineAddress ?? privateAddress };
  }

  async reportError(hook: Hook): Promise<void> {
    this.status.set({ agent: { current: 'error', message: `hook failed: "${hookName(hook)}"`, data: failureData(hook) } });
    await this.status.flush();
  }

  /** The view as it is, or read if there is none yet. */
  async view(): Promise<AgentView> {
    return this.deps.view.current ?? (await this.deps.view.refresh());
  }
}
