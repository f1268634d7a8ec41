// The unit agent (uniter): one loop per unit that reads what state says (the machine's shared
// view, plus the members of its relations), decides the one next thing to do (decide.ts), has
// the executor carry it out (executor.ts, one module per kind of step under steps/), and waits
// for a hint when there is nothing left. "One hook at a time per unit" holds by construction,
// and a machine-wide lock serialises hooks of all units on the machine, as Juju's machine lock
// does (https://github.com/juju/juju/blob/2.9/worker/uniter/uniter.go, acquireExecutionLock;
// docs/agents.md shows where the lock lives).
import { mkdirSync } from 'node:fs';
import { updateStatusIntervalMs } from '#shared/domain/model-config.js';
import { AgentApiError } from '../api-client.js';
import { ToolServer } from '../hook-tools/tool-server.js';
import type { AgentView } from '../view.js';
import { nextStep, type RemoteState } from './decide.js';
import { executeStep } from './executor.js';
import { hookName } from './hooks.js';
import { loadState, saveState } from './local-state.js';
import { MODULE, OPERATION, UnitContext, type UniterDeps } from './unit-context.js';
import { UpdateStatusTimer } from './update-status-timer.js';

export type { SubordinateDeployer, UniterDeps } from './unit-context.js';

const MAX_BACKOFF_MS = 30_000;

export type UniterOutcome = 'done' | 'stopped';

export class Uniter {
  private readonly ctx: UnitContext;
  private backoffMs = 0;
  private updateStatus?: UpdateStatusTimer;

  constructor(private readonly deps: UniterDeps) {
    this.ctx = new UnitContext(deps, new ToolServer());
    this.ctx.updateStatusRan = () => this.updateStatus?.restart();
  }

  get charmDir(): string {
    return this.ctx.charmDir;
  }

  poke(): void {
    this.ctx.signal.notify();
  }

  relationChanged(relationKey: string): void {
    this.ctx.members.markDirty(relationKey);
    this.poke();
  }

  settingsChanged(relationId: number, unit: string): void {
    this.ctx.members.settingsChanged(relationId, unit);
    this.poke();
  }

  resync(): void {
    this.ctx.members.markAllDirty();
    this.ctx.secrets.markStale();
    this.poke();
  }

  /** A secret the unit may manage or consume changed (a `secret` hint). */
  secretsChanged(): void {
    this.ctx.secrets.markStale();
    this.poke();
  }

  stop(options: { shutdown?: boolean } = {}): void {
    this.ctx.stopping = true;
    if (options.shutdown) this.ctx.shuttingDown = true;
    this.poke();
  }

  async run(): Promise<UniterOutcome> {
    const { ctx } = this;
    const { unitDir, unitName } = this.deps;
    mkdirSync(unitDir, { recursive: true });
    ctx.local = loadState(unitDir);
    if (ctx.local.inFlight) {
      // "if the unit agent process is killed for any reason while running a hook, then when it
      // recovers it will treat that hook as having failed"
      const hook = ctx.local.inFlight;
      ctx.local = { ...ctx.local, inFlight: undefined, error: hook };
      saveState(unitDir, ctx.local);
      ctx.logger.error(OPERATION, `hook "${hookName(hook)}" was interrupted: the agent stopped while it ran`);
    }
    // The charm the deployer unpacked: the starting point for upgrades.
    if (ctx.local.charmUrl === undefined && this.deps.deployedCharmUrl !== undefined) {
      ctx.save({ ...ctx.local, charmUrl: this.deps.deployedCharmUrl });
    }
    // "config-changed ... runs ... when recovering from transient unit agent errors"
    ctx.local.recovering = ctx.local.installed && ctx.local.started;
    if (ctx.local.error) await ctx.reportError(ctx.local.error);

    ctx.logger.info(MODULE, `unit "${unitName}" started`);
    let confirmedGone = false;
    try {
      while (!ctx.stopping) {
        const view = await ctx.view();
        const remote = await this.remoteState(view);
        if (remote.unit && remote.unit.principal === undefined && this.deps.subordinates) {
          if (await this.deps.subordinates.reconcile(remote.unit, view)) continue;
        }
        const timer = this.updateStatusTimer(view);
        const holdsLease = remote.leadership?.holder === unitName;
        const renewInMs = holdsLease ? ctx.leadership.renewalDueInMs() : undefined;
        const secretHook = await ctx.secrets.due(ctx.local, remote.unit);
        const step = nextStep(ctx.local, {
          ...remote,
          updateStatusDue: timer.due(),
          renewLeadershipDue: renewInMs === 0,
          ...(secretHook ? { secretHook } : {}),
        });
        if (step.kind === 'done') {
          // The view may predate the unit's deployment: believe "gone" only from a fresh read.
          if (!confirmedGone && !remote.unit) {
            confirmedGone = true;
            await this.deps.view.refresh();
            continue;
          }
          ctx.logger.info(MODULE, `unit "${unitName}" shutting down: ${step.why}`);
          return 'done';
        }
        confirmedGone = false;
        if (step.kind === 'wait') {
          if (step.why === 'idle' || step.why === 'subordinates') ctx.status.set({ agent: { current: 'idle' } });
          await ctx.status.flush();
          // Idle and started: wake for update-status when its timer fires, if nothing comes first;
          // idle: wake when a secret's rotation or expiry falls due;
          // holding the lease: wake to renew it (in any wait: Juju's tracker renews in an error state too).
          const untilUpdateStatus = step.why === 'idle' && ctx.local.started ? timer.remainingMs() : 0;
          const untilSecret = step.why === 'idle' ? (ctx.secrets.wakeInMs() ?? 0) : 0;
          const wakeIn = [untilUpdateStatus, untilSecret, renewInMs ?? 0].filter((ms) => ms > 0);
          await ctx.signal.wait(wakeIn.length > 0 ? Math.min(...wakeIn) : undefined);
          continue;
        }
        try {
          await executeStep(ctx, step);
          this.backoffMs = 0;
        } catch (e) {
          if (!(e instanceof AgentApiError)) throw e;
          // Refused by state (a relation died meanwhile, the unit still has subordinates...), or
          // an answer nobody expected (a 500 that outlasted the retries): look again, and do not
          // hammer the API if the answer stays the same. Only an unreachable controller restarts the agent.
          ctx.logger.warning(MODULE, `${step.kind} ${e.refused ? 'refused' : 'failed'}: ${e.message}`);
          this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(500, this.backoffMs * 2));
          await this.deps.view.refresh().catch(() => undefined);
          await ctx.signal.wait(this.backoffMs);
        }
      }
      return 'stopped';
    } finally {
      await ctx.tools.stop();
      // What the unit reported last (and its last lines) must not wait for a timer that a
      // stopping agent would never see fire.
      await ctx.status.flush().catch(() => undefined);
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
    const { ctx } = this;
    const seen = view.units.find((u) => u.name === this.deps.unitName);
    // The view may predate the report that carries the charm URL: this agent knows what it reported.
    const unit = seen && ctx.reportedCharmUrl !== undefined ? { ...seen, charmUrl: ctx.reportedCharmUrl } : seen;
    const application = unit ? view.applications.find((a) => a.name === unit.application) : undefined;
    const relations = application ? view.relations.filter((r) => application.relations.includes(r.key)) : [];
    const principal = unit?.principal !== undefined ? view.units.find((u) => u.name === unit.principal) : undefined;
    const members = unit ? await ctx.members.sync(this.deps.api, unit, relations) : {};
    const leadership = application ? view.leadership?.find((l) => l.application === application.name) : undefined;
    return {
      relations,
      members,
      appVersions: ctx.members.appVersions(),
      ...(leadership ? { leadership } : {}),
      ...(unit ? { unit } : {}),
      ...(application ? { application } : {}),
      ...(principal ? { principal } : {}),
    };
  }
}
