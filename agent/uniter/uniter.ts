// The unit agent (uniter): one loop per unit that reads what state says (the machine's shared
// view, plus the members of its relations), decides the one next thing to do (decide.ts), does
// it, and waits for a hint when there is nothing left. "One hook at a time per unit" holds by
// construction, and a machine-wide lock serialises hooks of all units on the machine, as Juju's
// machine lock does (https://github.com/juju/juju/blob/2.9/worker/uniter/uniter.go, acquireExecutionLock;
// docs/agents.md shows where the lock lives).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Unit } from '#shared/domain/entities.js';
import { AgentApiError, type AgentApi } from '../api-client.js';
import type { CharmFetcher } from '../charm-cache.js';
import type { AgentLog } from '../log/agent-log.js';
import { ToolServer } from '../hook-tools/tool-server.js';
import type { ActionToolContext, ToolRelation } from '../hook-tools/tool-context.js';
import type { Task } from '#shared/domain/operations.js';
import { ActionState } from './action-state.js';
import { runTask } from './task-process.js';
import { Signal, type Mutex } from '../signal.js';
import type { Clock } from '../clock.js';
import type { AgentView, ViewSource } from '../view.js';
import { counterpartApplications } from '#shared/domain/relation-counterparts.js';
import { charmEndpoints } from '#shared/domain/charm.js';
import { replaceCharmDir } from './charm-dir.js';
import { nextStep, type RemoteState, type Step } from './decide.js';

/** A step that does something (done and wait are the loop's own). */
type ExecutableStep = Exclude<Step, { kind: 'done' | 'wait' }>;
import { HookContext } from './hook-context.js';
import { networkInfoFor } from './network-info.js';
import { availabilityZoneOf, hookEnvironment, newContextId, type HookEnvInput } from './hook-env.js';
import { runHookProcess, type HookProcessResult, type HookRunner } from './hook-process.js';
import { failureData, hookName, isRelationHook, runningMessage, type Hook } from './hooks.js';
import { afterHook, loadState, saveState, type LocalState } from './local-state.js';
import { LeadershipTracker } from './leadership.js';
import { RelationMembers } from './relation-members.js';
import { UnitReporter } from './unit-reporter.js';
import { UpdateStatusTimer } from './update-status-timer.js';
import { updateStatusIntervalMs } from '#shared/domain/model-config.js';

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
  /** Runs a hook's executable; a child process unless the agent simulator (bench/) runs hooks in-process. */
  hookRunner?: HookRunner;
  /**
   * The unit's reports (statuses, charm URL, log lines): the machine agent's, kept while the unit
   * is deployed, so a report not yet taken survives a restart of this unit agent.
   */
  reporter: UnitReporter;
  /** Times update-status, lease renewals and back-offs (agent/clock.ts). */
  clock: Clock;
}

const MODULE = 'juju.worker.uniter';
const OPERATION = 'juju.worker.uniter.operation';
const MAX_BACKOFF_MS = 30_000;
/** After a refused claim, how long before the same view may make the agent claim again. */
const CLAIM_RETRY_MS = 5_000;

export type UniterOutcome = 'done' | 'stopped';

/**
 * A leader's own writes to its application's bag in a peer relation: remembered as seen, so
 * that only the other peers run -changed for them (the bag is the peer relation's "other side").
 */
function ownAppWrites(local: LocalState, appVersions: Record<number, number> | undefined, view: AgentView): LocalState {
  if (!appVersions) return local;
  const relations = { ...local.relations };
  for (const [key, relation] of Object.entries(relations)) {
    const version = appVersions[relation.id];
    const peer = view.relations.find((r) => r.key === key)?.endpoints.every((e) => e.role === 'peer');
    if (version !== undefined && peer) relations[key] = { ...relation, appVersion: Math.max(version, relation.appVersion ?? 0) };
  }
  return { ...local, relations };
}

export class Uniter {
  private readonly signal: Signal;
  private readonly members = new RelationMembers();
  private local!: LocalState;
  private stopping = false;
  /** Process shutdown: a hook killed with us stays in flight, to be treated as failed on return. */
  private shuttingDown = false;
  private backoffMs = 0;
  private readonly logger;
  private readonly status: UnitReporter;
  /** The charm URL reported (it rides on the next report): what state will say, without reading it again. */
  private reportedCharmUrl?: string;
  private updateStatus?: UpdateStatusTimer;
  /** The workload version this agent last committed (application-version-set). */
  private workloadVersion?: string;
  private readonly leadership: LeadershipTracker;

  constructor(private readonly deps: UniterDeps) {
    this.logger = deps.log.for(deps.unitName);
    this.status = deps.reporter;
    this.signal = new Signal(deps.clock);
    this.leadership = new LeadershipTracker(deps.api, deps.unitName, deps.clock);
  }

  get charmDir(): string {
    return join(this.deps.unitDir, 'charm');
  }

  poke(): void {
    this.signal.notify();
  }

  relationChanged(relationKey: string): void {
    this.members.markDirty(relationKey);
    this.poke();
  }

  settingsChanged(relationId: number, unit: string): void {
    this.members.settingsChanged(relationId, unit);
    this.poke();
  }

  resync(): void {
    this.members.markAllDirty();
    this.poke();
  }

  stop(options: { shutdown?: boolean } = {}): void {
    this.stopping = true;
    if (options.shutdown) this.shuttingDown = true;
    this.poke();
  }

  async run(): Promise<UniterOutcome> {
    const { unitDir, unitName } = this.deps;
    mkdirSync(unitDir, { recursive: true });
    this.local = loadState(unitDir);
    if (this.local.inFlight) {
      // "if the unit agent process is killed for any reason while running a hook, then when it
      // recovers it will treat that hook as having failed"
      const hook = this.local.inFlight;
      this.local = { ...this.local, inFlight: undefined, error: hook };
      saveState(unitDir, this.local);
      this.logger.error(OPERATION, `hook "${hookName(hook)}" was interrupted: the agent stopped while it ran`);
    }
    // The charm the deployer unpacked: the starting point for upgrades.
    if (this.local.charmUrl === undefined && this.deps.deployedCharmUrl !== undefined) {
      this.save({ ...this.local, charmUrl: this.deps.deployedCharmUrl });
    }
    // "config-changed ... runs ... when recovering from transient unit agent errors"
    this.local.recovering = this.local.installed && this.local.started;
    if (this.local.error) await this.reportError(this.local.error);

    const tools = new ToolServer();
    this.logger.info(MODULE, `unit "${unitName}" started`);
    let confirmedGone = false;
    try {
      while (!this.stopping) {
        const view = this.deps.view.current ?? (await this.deps.view.refresh());
        const remote = await this.remoteState(view);
        if (remote.unit && remote.unit.principal === undefined && this.deps.subordinates) {
          if (await this.deps.subordinates.reconcile(remote.unit, view)) continue;
        }
        const timer = this.updateStatusTimer(view);
        const holdsLease = remote.leadership?.holder === unitName;
        const renewInMs = holdsLease ? this.leadership.renewalDueInMs() : undefined;
        const step = nextStep(this.local, { ...remote, updateStatusDue: timer.due(), renewLeadershipDue: renewInMs === 0 });
        if (step.kind === 'done') {
          // The view may predate the unit's deployment: believe "gone" only from a fresh read.
          if (!confirmedGone && !remote.unit) {
            confirmedGone = true;
            await this.deps.view.refresh();
            continue;
          }
          this.logger.info(MODULE, `unit "${unitName}" shutting down: ${step.why}`);
          return 'done';
        }
        confirmedGone = false;
        if (step.kind === 'wait') {
          if (step.why === 'idle' || step.why === 'subordinates') this.status.set({ agent: { current: 'idle' } });
          await this.status.flush();
          // Idle and started: wake for update-status when its timer fires, if nothing comes first;
          // holding the lease: wake to renew it (in any wait: Juju's tracker renews in an error state too).
          const untilUpdateStatus = step.why === 'idle' && this.local.started ? timer.remainingMs() : 0;
          const wakeIn = [untilUpdateStatus, renewInMs ?? 0].filter((ms) => ms > 0);
          await this.signal.wait(wakeIn.length > 0 ? Math.min(...wakeIn) : undefined);
          continue;
        }
        try {
          await this.execute(step, tools);
          this.backoffMs = 0;
        } catch (e) {
          if (!(e instanceof AgentApiError) || !e.refused) throw e;
          // Refused by state (a relation died meanwhile, the unit still has subordinates...):
          // look again, and do not hammer the API if the answer stays the same.
          this.logger.warning(MODULE, `${step.kind} refused: ${e.message}`);
          this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(500, this.backoffMs * 2));
          await this.deps.view.refresh().catch(() => undefined);
          await this.signal.wait(this.backoffMs);
        }
      }
      return 'stopped';
    } finally {
      await tools.stop();
      // What the unit reported last (and its last lines) must not wait for a timer that a
      // stopping agent would never see fire.
      await this.status.flush().catch(() => undefined);
    }
  }

  /** The update-status timer, on the model's current interval (a model-config change restarts it). */
  private updateStatusTimer(view: AgentView): UpdateStatusTimer {
    const intervalMs = updateStatusIntervalMs(view.modelConfig);
    if (!this.updateStatus) this.updateStatus = new UpdateStatusTimer(intervalMs, this.deps.clock);
    else this.updateStatus.changeInterval(intervalMs);
    return this.updateStatus;
  }

  private async remoteState(view: AgentView): Promise<RemoteState> {
    const seen = view.units.find((u) => u.name === this.deps.unitName);
    // The view may predate the report that carries the charm URL: this agent knows what it reported.
    const unit = seen && this.reportedCharmUrl !== undefined ? { ...seen, charmUrl: this.reportedCharmUrl } : seen;
    const application = unit ? view.applications.find((a) => a.name === unit.application) : undefined;
    const relations = application ? view.relations.filter((r) => application.relations.includes(r.key)) : [];
    const principal = unit?.principal !== undefined ? view.units.find((u) => u.name === unit.principal) : undefined;
    const members = unit ? await this.members.sync(this.deps.api, unit, relations) : {};
    const leadership = application ? view.leadership?.find((l) => l.application === application.name) : undefined;
    return {
      relations,
      members,
      appVersions: this.members.appVersions(),
      ...(leadership ? { leadership } : {}),
      ...(unit ? { unit } : {}),
      ...(application ? { application } : {}),
      ...(principal ? { principal } : {}),
    };
  }

  private save(next: LocalState): void {
    this.local = next;
    saveState(this.deps.unitDir, next);
  }

  /** Carries out one step nextStep() decided (decide.ts), by the method named after it. */
  private async execute(step: ExecutableStep, tools: ToolServer): Promise<void> {
    const steps: { [K in ExecutableStep['kind']]: (step: Extract<ExecutableStep, { kind: K }>) => Promise<void> } = {
      'run-hook': (s) => this.runHook(s.hook, tools),
      'retry-hook': (s) => this.retryHook(s, tools),
      'skip-hook': (s) => this.skipHook(s),
      'clear-resolved': () => this.clearResolved(),
      'replace-charm': (s) => this.replaceCharm(s),
      'report-charm': (s) => this.reportCharm(s),
      'enter-scope': (s) => this.enterScope(s),
      'leave-scope': (s) => this.leaveScope(s),
      'forget-relation': (s) => this.forgetRelation(s),
      'claim-leadership': () => this.claimLeadership(),
      'renew-leadership': () => this.renewLeadership(),
      'resign-leadership': () => this.resignLeadership(),
      deposed: () => this.deposed(),
      'destroy-unit': () => this.destroyUnit(),
      'subordinate-dying': () => this.subordinateDying(),
      'run-action': (s) => this.runAction(s.task, tools),
      'fail-interrupted-action': (s) => this.failInterruptedAction(s),
      'unit-dead': () => this.unitDead(),
    };
    // The table is keyed by kind, each entry typed by its own step: TypeScript cannot relate the two
    // through an index, so the entry is called as one taking any executable step.
    return (steps[step.kind] as (step: ExecutableStep) => Promise<void>)(step);
  }

  private async retryHook(step: Extract<ExecutableStep, { kind: 'retry-hook' }>, tools: ToolServer): Promise<void> {
    const { api, unitName } = this.deps;
    // As Juju's uniter does, the agent clears the resolved flag once it acts on it
    // (https://github.com/juju/juju/blob/2.9/worker/uniter/resolver.go).
    await api.call('clear-resolved', { unit: unitName });
    this.save({ ...this.local, error: undefined });
    this.logger.info(OPERATION, `retrying hook "${hookName(step.hook)}" (resolved)`);
    await this.deps.view.refresh();
    return this.runHook(step.hook, tools);
  }

  private async skipHook(step: Extract<ExecutableStep, { kind: 'skip-hook' }>): Promise<void> {
    const { api, unitName } = this.deps;
    // `resolved --no-retry`: "treat the failed hook as successful without running it".
    this.save(afterHook({ ...this.local, error: undefined }, step.hook));
    await api.call('clear-resolved', { unit: unitName });
    this.logger.info(OPERATION, `skipped "${hookName(step.hook)}" hook (resolved --no-retry)`);
    await this.deps.view.refresh();
  }

  private async clearResolved(): Promise<void> {
    const { api, unitName } = this.deps;
    await api.call('clear-resolved', { unit: unitName });
    await this.deps.view.refresh();
  }

  private async replaceCharm(step: Extract<ExecutableStep, { kind: 'replace-charm' }>): Promise<void> {
    const archive = step.charmArchive ? await this.deps.fetchCharm(this.deps.unitName, step.charmArchive) : undefined;
    // This unit's hooks run only from this loop, so none runs while its directory changes.
    await replaceCharmDir(this.charmDir, archive);
    // Recorded only now: killed before this line, the agent replaces the directory again.
    this.save({ ...this.local, charmUrl: step.charmUrl, ...(step.runHooks ? { upgradeHookPending: true } : {}) });
    this.logger.info(
      OPERATION,
      `upgraded charm to "${step.charmUrl}"${step.runHooks || !this.local.error ? '' : ' (forced, in an error state: no upgrade-charm hook)'}`,
    );
  }

  private async reportCharm(step: Extract<ExecutableStep, { kind: 'report-charm' }>): Promise<void> {
    // With the next report: no request, and no view to read again for a change this agent made.
    this.status.reportCharm(step.charmUrl);
    this.reportedCharmUrl = step.charmUrl;
  }

  private async enterScope(step: Extract<ExecutableStep, { kind: 'enter-scope' }>): Promise<void> {
    const { api, unitName } = this.deps;
    // Juju's "Charms in action" (https://github.com/juju/juju/blob/7f5ca4e9229c4320911ac5436e489fd1f59d88c7/doc/charms-in-action.txt):
    // "Write initial relation settings (just one value, private-address),
    // to ensure that they will be available to observers before they're triggered by the
    // next step; Signal its existence" — enter-scope does both in one transaction.
    const view = this.deps.view.current;
    const settings = { 'private-address': this.addresses(view).private };
    await api.call('enter-scope', { unit: unitName, relation: step.relation.key, settings });
    this.save({
      ...this.local,
      relations: {
        ...this.local.relations,
        [step.relation.key]: { id: step.relation.id, endpoint: step.endpoint, members: {}, created: false },
      },
    });
    this.logger.info(MODULE, `joined relation "${step.relation.key}"`);
    this.members.markDirty(step.relation.key);
    await this.deps.view.refresh();
  }

  private async leaveScope(step: Extract<ExecutableStep, { kind: 'leave-scope' }>): Promise<void> {
    const { api, unitName } = this.deps;
    await api.call('leave-scope', { unit: unitName, relation: step.relation });
    const { [step.relation]: _left, ...relations } = this.local.relations;
    this.save({ ...this.local, relations });
    this.logger.info(MODULE, `left relation "${step.relation}"`);
    await this.deps.view.refresh();
  }

  private async forgetRelation(step: Extract<ExecutableStep, { kind: 'forget-relation' }>): Promise<void> {
    const { [step.relation]: _gone, ...relations } = this.local.relations;
    this.save({ ...this.local, relations });
  }

  private async claimLeadership(): Promise<void> {
    const { unitName } = this.deps;
    const since = this.deps.view.generation;
    const result = await this.leadership.claim();
    this.logger.info(MODULE, result.leader ? 'claimed leadership' : `leadership is held by "${result.holder ?? 'nobody'}"`);
    // The answer says who holds the lease now: the view learns it without being read again (the
    // lease's own change hints the other units of the application, not this one's need).
    const application = this.deps.view.current?.units.find((u) => u.name === unitName)?.application;
    if (application !== undefined && result.holder !== undefined) {
      const holder = result.holder;
      this.deps.view.amend(
        (view) => ({
          ...view,
          leadership: view.leadership?.map((l) =>
            l.application === application
              ? { ...l, holder, claimable: false, ...(result.expiresAt ? { expiresAt: result.expiresAt } : {}) }
              : l,
          ),
        }),
        // A lease this unit was granted is its own until it releases it (no newer read can say
        // otherwise); a refusal names a holder that may have released the lease since.
        result.leader ? undefined : since,
      );
    } else await this.deps.view.refresh();
    // A claim the view still calls possible (a stale view, a race): do not hammer the API.
    if (!result.leader) await this.signal.wait(CLAIM_RETRY_MS);
  }

  private async renewLeadership(): Promise<void> {
    const { unitName } = this.deps;
    // Every ~4.7 min of a leader's life: DEBUG, not shipped (a shipped line costs a request).
    const result = await this.leadership.claim();
    if (result.leader) {
      this.deps.log.log(unitName, 'DEBUG', MODULE, 'renewed leadership', { ship: false });
      return;
    }
    // Lost (it ran out and another unit took it): the view shows the new holder, and the
    // unit is deposed. A view that still shows this unit must not make it hammer the API.
    this.logger.info(MODULE, `leadership is held by "${result.holder ?? 'nobody'}"`);
    await this.deps.view.refresh();
    if (this.deps.view.current?.leadership?.some((l) => l.holder === unitName)) await this.signal.wait(CLAIM_RETRY_MS);
  }

  private async resignLeadership(): Promise<void> {
    this.logger.info(MODULE, 'unit is dying: resigning leadership');
    await this.leadership.release();
    this.save({ ...this.local, leader: false });
    await this.deps.view.refresh();
  }

  private async deposed(): Promise<void> {
    this.logger.info(MODULE, 'another unit is leader now');
    this.leadership.forget();
    this.save({ ...this.local, leader: false });
  }

  private async destroyUnit(): Promise<void> {
    const { api, unitName } = this.deps;
    // Juju's "Lifecycles" (https://github.com/juju/juju/blob/b3f05534d8f712f5c14c82b9b967bc3c27804814/doc/lifecycles.txt):
    // "the Unit Agents (UAs) for each unit of a service set their
    // corresponding units to Dying when they detect their service Dying".
    this.logger.info(MODULE, 'application is dying: setting the unit dying');
    await api.call('destroy-unit', { unit: unitName });
    await this.deps.view.refresh();
  }

  private async subordinateDying(): Promise<void> {
    const { api, unitName } = this.deps;
    this.logger.info(MODULE, 'no alive principal or container relation holds this subordinate: setting it dying');
    await api.call('subordinate-dying', { unit: unitName });
    await this.deps.view.refresh();
  }

  private async failInterruptedAction(step: Extract<ExecutableStep, { kind: 'fail-interrupted-action' }>): Promise<void> {
    const { api, unitName } = this.deps;
    // Juju fails a task its agent was running when it stopped: it may have done part of its work.
    await api.call('finish-task', {
      unit: unitName,
      task: step.task,
      status: 'failed',
      message: 'action terminated: the unit agent stopped while it ran',
      results: {},
    });
    this.save({ ...this.local, actionInFlight: undefined });
    this.logger.error(OPERATION, `task ${step.task} was interrupted: the agent stopped while it ran`);
    await this.deps.view.refresh();
  }

  private async unitDead(): Promise<void> {
    const { api, unitName } = this.deps;
    this.logger.info(MODULE, 'all relations departed and hooks run: setting the unit dead');
    // Report (with the unit's lines) while the unit still exists: once it is removed the
    // controller refuses them, and debug-log would never show its stop hook.
    await this.status.flush();
    await this.deps.log.drain();
    await api.call('unit-dead', { unit: unitName });
    await this.deps.view.refresh();
  }

  private addresses(view: AgentView | undefined): { private: string; public: string } {
    const unit = view?.units.find((u) => u.name === this.deps.unitName);
    const machineAddress = view?.machine.addresses[0];
    const privateAddress = unit?.privateAddress ?? machineAddress ?? this.deps.hostAddress;
    return { private: privateAddress, public: unit?.publicAddress ?? machineAddress ?? privateAddress };
  }

  private async reportError(hook: Hook): Promise<void> {
    this.status.set({ agent: { current: 'error', message: `hook failed: "${hookName(hook)}"`, data: failureData(hook) } });
    await this.status.flush();
  }

  /** The environment every hook and task of this unit shares (hook-env.ts adds what runs). */
  private environmentOf(view: AgentView, contextId: string, secret: string, socketAddress: string): HookEnvInput {
    const unit = view.units.find((u) => u.name === this.deps.unitName);
    const zone = availabilityZoneOf(view.machine.hardware);
    return {
      base: this.deps.baseEnv,
      toolsDir: this.deps.toolsDir,
      charmDir: this.charmDir,
      unitName: this.deps.unitName,
      contextId,
      secret,
      socketAddress,
      apiAddresses: this.deps.apiAddresses,
      modelName: view.model,
      ...(view.modelUuid ? { modelUuid: view.modelUuid } : {}),
      machineId: this.deps.machineId,
      ...(zone ? { availabilityZone: zone } : {}),
      ...(unit?.principal !== undefined ? { principal: unit.principal } : {}),
    };
  }

  /** What the hook's tools see: its relations, their members, config, addresses, status. */
  private hookContext(what: Hook | undefined, id: string, view: AgentView, action?: ActionToolContext): HookContext {
    // A task runs outside any relation, as Juju's actions do.
    const hook = what && isRelationHook(what) ? what : undefined;
    const unit = view.units.find((u) => u.name === this.deps.unitName);
    const application = view.applications.find((a) => a.name === unit?.application);
    const leadership = view.leadership?.find((l) => l.application === unit?.application);
    const relations: ToolRelation[] = [];
    const hookRelation = hook ? view.relations.find((r) => r.key === hook.relation) : undefined;
    const hookRemoteApp = hookRelation && unit ? counterpartApplications(hookRelation, unit.application)[0] : undefined;
    const members: Record<number, string[]> = {};
    for (const [key, local] of Object.entries(this.local.relations)) {
      const relation = view.relations.find((r) => r.key === key);
      const remoteApplication = relation && unit ? (counterpartApplications(relation, unit.application)[0] ?? '') : '';
      relations.push({ id: local.id, endpoint: local.endpoint, remoteApplication });
      const known = new Set(Object.keys(local.members));
      // relation-list in -joined already lists the joining unit; in -departed no longer the departing one.
      if (hook && hook.relation === key && hook.remoteUnit !== undefined) {
        if (hook.kind === 'relation-joined') known.add(hook.remoteUnit);
        if (hook.kind === 'relation-departed') known.delete(hook.remoteUnit);
      }
      members[local.id] = [...known];
    }
    const log = this.deps.log;
    if (unit) {
      const { current, message } = unit.workloadStatus;
      this.status.knowWorkload({ current, ...(message ? { message } : {}) });
    }
    return new HookContext({
      id,
      unitName: this.deps.unitName,
      status: this.status,
      ...(hook ? { hookRelationId: hook.relationId } : {}),
      ...(hook?.remoteUnit !== undefined ? { remoteUnit: hook.remoteUnit } : {}),
      ...(hookRemoteApp !== undefined ? { remoteApplication: hookRemoteApp } : {}),
      ...(action ? { action } : {}),
      api: this.deps.api,
      log: (level, message) => log.log(this.deps.unitName, level, `unit.${this.deps.unitName}.juju-log`, message),
      relations,
      members,
      config: { values: application?.config ?? {}, options: Object.keys(application?.charm.config ?? {}) },
      addresses: this.addresses(view),
      workload: { status: unit?.workloadStatus.current ?? 'unknown', message: unit?.workloadStatus.message ?? '' },
      openPorts: unit?.openPorts ?? [],
      bindings: application ? charmEndpoints(application.charm).map((e) => e.name) : [],
      network: networkInfoFor(this.addresses(view).private),
      ...((this.workloadVersion ?? unit?.workloadVersion) !== undefined
        ? { workloadVersion: this.workloadVersion ?? unit?.workloadVersion }
        : {}),
      leadership: { tracker: this.leadership, ...(leadership ? { view: leadership } : {}) },
    });
  }

  /**
   * One task: taken (pending → running) before anything runs, so a task cancelled meanwhile never
   * runs; its outcome written whatever happens. A failed action never puts the unit in error.
   */
  private async runAction(id: string, tools: ToolServer): Promise<void> {
    const { api, unitName } = this.deps;
    const release = await this.deps.hookLock.lock();
    try {
      if (this.stopping) return;
      const task = await api.call<Task>('start-task', { unit: unitName, task: id });
      if (task.status !== 'running') {
        // Cancelled, or finished by an earlier run of this agent: the view is behind.
        await this.deps.view.refresh();
        return;
      }
      this.save({ ...this.local, actionInFlight: id });
      this.status.set({ agent: { current: 'executing', message: `running action ${task.action}` } });
      const view = this.deps.view.current ?? (await this.deps.view.refresh());
      const contextId = newContextId(unitName, task.action);
      const action = new ActionState(task.action, { id, unit: unitName, parameters: task.parameters }, api);
      const ctx = this.hookContext(undefined, contextId, view, action);
      const { secret, address } = await tools.open(contextId, ctx);
      let ran;
      try {
        const env = hookEnvironment({ ...this.environmentOf(view, contextId, secret, address), action: { name: task.action, id } });
        ran = await runTask({
          task,
          charmDir: this.charmDir,
          env,
          onLine: (line) => this.deps.log.log(unitName, 'DEBUG', `unit.${unitName}.${task.action}`, line),
        });
      } finally {
        await tools.close(contextId);
      }
      if (this.shuttingDown && ran.signal !== null) return; // killed with us: stays in flight, failed on restart
      await action.settled();
      let failure = action.failure ?? ran.failure;
      if (!failure) {
        try {
          await ctx.flush();
        } catch (e) {
          if (!(e instanceof AgentApiError) || !e.refused) throw e;
          failure = `cannot commit the action's changes: ${e.message}`;
        }
      }
      await api.call('finish-task', {
        unit: unitName,
        task: id,
        status: failure ? 'failed' : 'completed',
        ...(failure ? { message: failure } : {}),
        results: { ...action.results, ...ran.results },
      });
      this.save({ ...this.local, actionInFlight: undefined });
      this.logger.info(OPERATION, `ran "${task.action}" action (task ${id})${failure ? `: failed: ${failure}` : ''}`);
      if (this.local.error) await this.reportError(this.local.error);
      await this.deps.view.refresh();
    } finally {
      release();
    }
  }

  /** Runs one hook: announced, spawned, its changes committed, its outcome recorded. */
  private async runHook(hook: Hook, tools: ToolServer): Promise<void> {
    const release = await this.deps.hookLock.lock();
    try {
      if (this.stopping) return;
      await this.announceHook(hook);
      this.save({ ...this.local, inFlight: hook });
      const view = this.deps.view.current ?? (await this.deps.view.refresh());
      const { result, ctx } = await this.spawnHook(hook, tools, view);
      if (this.shuttingDown && result.kind === 'exited' && result.signal !== null) return; // killed with us: stays in flight
      const { failure, committed } = await this.commitHook(result, ctx);
      await this.recordHook(hook, { result, ctx, view, committed, ...(failure ? { failure } : {}) });
    } finally {
      if (hook.kind === 'update-status') this.updateStatus?.restart();
      release();
    }
  }

  /**
   * The statuses Juju's uniter sets around hooks
   * (https://github.com/juju/juju/blob/2.9/worker/uniter/operation/runhook.go): the agent
   * executing, and the workload maintenance / installing charm software before install (unless
   * the charm already set a status), maintenance / stopping charm software before stop.
   * update-status is routine: it must cost no request of its own beyond the charm's tool calls,
   * so the agent status stays idle around it (a hook error still shows).
   */
  private async announceHook(hook: Hook): Promise<void> {
    const workload =
      hook.kind === 'install' && !this.local.workloadStatusSet
        ? { current: 'maintenance', message: 'installing charm software' }
        : hook.kind === 'stop'
          ? { current: 'maintenance', message: 'stopping charm software' }
          : undefined;
    // Both go with the unit's next report, in this order, before any status the hook sets itself.
    if (hook.kind !== 'update-status')
      this.status.set({ agent: { current: 'executing', message: runningMessage(hook) }, ...(workload ? { workload } : {}) });
    // Except before install, which waits for its report: until the unit's agent status leaves
    // `allocating`, remove-unit removes the unit at once, without its agent (Juju's shortcut, which
    // Juju's uniter closes the same way: it sets the status before the hook runs).
    if (hook.kind === 'install') await this.status.flush();
  }

  /** The hook's process, with its tools served for as long as it runs. */
  private async spawnHook(hook: Hook, tools: ToolServer, view: AgentView): Promise<{ result: HookProcessResult; ctx: HookContext }> {
    const { unitName } = this.deps;
    const name = hookName(hook);
    const id = newContextId(unitName, hook);
    const ctx = this.hookContext(hook, id, view);
    const unit = view.units.find((u) => u.name === unitName);
    const relation = isRelationHook(hook) ? view.relations.find((r) => r.key === hook.relation) : undefined;
    const { secret, address } = await tools.open(id, ctx);
    try {
      const env = hookEnvironment({
        ...this.environmentOf(view, id, secret, address),
        hook,
        ...(relation && unit ? { remoteApplication: counterpartApplications(relation, unit.application)[0] ?? '' } : {}),
      });
      const result = await (this.deps.hookRunner ?? runHookProcess)({
        charmDir: this.charmDir,
        dispatchPath: `hooks/${name}`,
        env,
        onLine: (_stream, line) => this.deps.log.log(unitName, 'DEBUG', `unit.${unitName}.${name}`, line),
      });
      return { result, ctx };
    } finally {
      await tools.close(id);
    }
  }

  /** Why the hook failed, if it did; else its changes, committed in one transaction. */
  private async commitHook(
    result: HookProcessResult,
    ctx: HookContext,
  ): Promise<{ failure?: string; committed: { appVersions?: Record<number, number> } }> {
    let failure: string | undefined;
    if (result.kind === 'spawn-error') failure = `cannot run hook: ${result.message}`;
    else if (result.kind === 'exited' && result.code !== 0)
      failure = result.code === null ? `signal: ${result.signal}` : `exit status ${result.code}`;
    // Remembered: the unit item's version does not hint the agent, so its view may lag.
    if (ctx.newWorkloadVersion !== undefined) this.workloadVersion = ctx.newWorkloadVersion;
    if (failure) return { failure, committed: {} };
    try {
      return { committed: await ctx.flush() };
    } catch (e) {
      if (!(e instanceof AgentApiError) || !e.refused) throw e; // the agent restarts; the hook stays in flight
      return { failure: `cannot commit the hook's changes: ${e.message}`, committed: {} };
    }
  }

  /** The hook's outcome in the unit's state, its log and its statuses. */
  private async recordHook(
    hook: Hook,
    ran: {
      result: HookProcessResult;
      ctx: HookContext;
      view: AgentView;
      committed: { appVersions?: Record<number, number> };
      failure?: string;
    },
  ): Promise<void> {
    const name = hookName(hook);
    const { result, ctx, view, committed, failure } = ran;
    const workloadStatusSet = this.local.workloadStatusSet || ctx.statusWasSet;
    const via = result.kind === 'missing' ? '' : ` (via ${result.via})`;
    if (failure) {
      this.save({ ...this.local, inFlight: undefined, error: hook, workloadStatusSet });
      this.logger.error(OPERATION, `hook "${name}"${via} failed: ${failure}`);
      await this.reportError(hook);
      return;
    }
    this.save(ownAppWrites(afterHook({ ...this.local, inFlight: undefined, workloadStatusSet }, hook), committed.appVersions, view));
    const line = result.kind === 'missing' ? `skipped "${name}" hook (${result.why})` : `ran "${name}" hook${via}`;
    if (hook.kind === 'update-status') this.deps.log.log(this.deps.unitName, 'DEBUG', OPERATION, line, { ship: false });
    else this.logger.info(OPERATION, line);
    // As in Juju's runhook.go: unknown if the charm never called status-set by the end of
    // start; maintenance after stop.
    if (hook.kind === 'start' && !workloadStatusSet) this.status.set({ workload: { current: 'unknown' } });
    if (hook.kind === 'stop') this.status.set({ workload: { current: 'maintenance' } });
  }
}
