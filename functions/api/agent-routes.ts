// The agent API (docs/architecture.md, 'Agents are least-privileged'): with its credential an agent
// may read and change only its own machine and the units on it, and read what those units' hooks
// may see. Every route first checks the named unit against the caller's machine.
import type { AgentOperation, AgentRequestOf } from '../../shared/api/agent-requests.js';
import type { Application, Relation, Unit } from '../../shared/domain/entities.js';
import { DroverError, notFound } from '../../shared/domain/errors.js';
import { entityTag, type LogSink } from '../../shared/logs/log-sink.js';
import { refs } from '../../shared/domain/plan.js';
import { setMachineAgentStatus, setUnitStatus } from '../../shared/state/agent-status.js';
import { destroyUnitByAgent } from '../../shared/state/destroy-unit.js';
import { enterScope } from '../../shared/state/enter-scope.js';
import { leaveScope } from '../../shared/state/leave-scope.js';
import { ensureMachineDead } from '../../shared/state/machine-dead.js';
import { getMachine, getMany, getModel, getRelation, getUnit, getUnitState } from '../../shared/state/reads.js';
import { readGoalState } from '../../shared/state/goal-state.js';
import { getRelationById } from '../../shared/state/relation-reads.js';
import { readRelationUnits } from '../../shared/state/relation-units.js';
import { readSettings, writeSettings } from '../../shared/state/relation-settings.js';
import { removeUnit } from '../../shared/state/remove-unit.js';
import { clearResolved } from '../../shared/state/resolve-unit.js';
import { commitHookChanges } from '../../shared/state/commit-hook.js';
import type { Store } from '../../shared/state/store.js';
import { ensureSubordinateDying } from '../../shared/state/subordinate-dying.js';
import { setUnitCharm } from '../../shared/state/unit-charm.js';
import { ensureUnitDead } from '../../shared/state/unit-dead.js';
import { setUnitPorts } from '../../shared/state/unit-ports.js';
import { finishTask, forgetPendingTask, getTask, logTask, startTask } from '../../shared/state/operations.js';
import { claimLeadership, getLeaderSettings, readLeadership, releaseLeadership } from '../../shared/state/leadership.js';
import { readAppSettings } from '../../shared/state/app-settings.js';
import { readApplicationStatus, setApplicationStatus } from '../../shared/state/application-status.js';
import { DEFAULT_LEASE_SECONDS } from '../../shared/domain/leadership.js';

export interface AgentContext {
  store: Store;
  /** The calling agent's machine, established by its credential. */
  machine: string;
  /** The length of a leadership lease (shared/domain/leadership.ts); default DEFAULT_LEASE_SECONDS. */
  leadershipLeaseSeconds?: number;
  /** Where agents' log lines go (debug-log); absent: they are dropped. */
  logs?: LogSink;
}

const leaseMs = (ctx: AgentContext) => (ctx.leadershipLeaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;

const forbidden = (what: string) => new DroverError('unauthorized', `permission denied: ${what} is not on this agent's machine`);

/** The task, if it belongs to `unit` (already checked to be the caller's): no agent touches another unit's tasks. */
async function ownTask(ctx: AgentContext, unit: string, id: string): Promise<void> {
  const task = await getTask(ctx.store, id);
  if (!task) throw notFound(`task ${id} not found`);
  if (task.unit !== unit) throw forbidden(`task ${id}`);
}

/** The unit, if it is on the caller's machine (principals and subordinates both carry `machine`). */
async function ownUnit(ctx: AgentContext, name: string): Promise<Unit> {
  const unit = await getUnit(ctx.store, name);
  if (!unit || unit.machine !== ctx.machine) throw forbidden(`unit "${name}"`);
  return unit;
}

type Route<O extends AgentOperation> = (ctx: AgentContext, body: AgentRequestOf<O>) => Promise<unknown>;

export const agentRoutes: { [O in AgentOperation]: Route<O> } = {
  view: async (ctx) => {
    const [machine, model] = await Promise.all([getMachine(ctx.store, ctx.machine), getModel(ctx.store)]);
    if (!machine) throw notFound(`machine ${ctx.machine} not found`);
    const principals = await getMany<Unit>(ctx.store, machine.principals.map(refs.unit));
    const subordinates = await getMany<Unit>(ctx.store, principals.flatMap((u) => u.subordinates).map(refs.unit));
    const units = [...principals, ...subordinates];
    const applications = await getMany<Application>(ctx.store, [...new Set(units.map((u) => u.application))].map(refs.application));
    const relations = await getMany<Relation>(ctx.store, [...new Set(applications.flatMap((a) => a.relations))].map(refs.relation));
    // Never hand the credential hash back, even to its own agent.
    const { agentCredentialHash: _hash, ...visible } = machine;
    const leadership = await readLeadership(
      ctx.store,
      applications.map((a) => a.name),
    );
    // The model's name is the store's: hooks see it as JUJU_MODEL_NAME; its uuid, JUJU_MODEL_UUID.
    // The model's config tells the unit agents their update-status interval; a change hints every
    // machine (shared/messaging/hint-plan.ts), so they read it again at once.
    return {
      model: ctx.store.model,
      ...(model?.uuid ? { modelUuid: model.uuid } : {}),
      machine: visible,
      units,
      applications,
      relations,
      leadership,
      modelConfig: model?.config ?? {},
    };
  },
  'set-unit-status': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    await setUnitStatus(ctx.store, body.unit, {
      ...(body.agent ? { agent: body.agent } : {}),
      ...(body.workload ? { workload: body.workload } : {}),
    });
    return {};
  },
  'set-machine-status': async (ctx, body) => {
    await setMachineAgentStatus(ctx.store, ctx.machine, body.status);
    return {};
  },
  'enter-scope': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    return enterScope(ctx.store, body.unit, body.relation, body.settings);
  },
  'leave-scope': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    return leaveScope(ctx.store, body.unit, body.relation);
  },
  'read-settings': async (ctx, body) => {
    // A hook may read the settings of any unit in a relation its own unit's application is in.
    const unit = await ownUnit(ctx, body.unit);
    const relation = await getRelationById(ctx.store, body.relationId);
    if (!relation || !relation.endpoints.some((e) => e.application === unit.application)) throw forbidden(`relation ${body.relationId}`);
    return readSettings(ctx.store, body.relationId, body.of);
  },
  'write-settings': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    return writeSettings(ctx.store, body.relationId, body.unit, body.changes);
  },
  'destroy-unit': async (ctx, body) => ({ result: (await ownUnit(ctx, body.unit)) && (await destroyUnitByAgent(ctx.store, body.unit)) }),
  'subordinate-dying': async (ctx, body) => ({
    result: (await ownUnit(ctx, body.unit)) && (await ensureSubordinateDying(ctx.store, body.unit)),
  }),
  'unit-dead': async (ctx, body) => ({ result: (await ownUnit(ctx, body.unit)) && (await ensureUnitDead(ctx.store, body.unit)) }),
  'remove-unit': async (ctx, body) => (await ownUnit(ctx, body.unit)) && removeUnit(ctx.store, body.unit),
  'clear-resolved': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    await clearResolved(ctx.store, body.unit);
    return {};
  },
  'set-unit-charm': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    await setUnitCharm(ctx.store, body.unit, body.charmUrl);
    return {};
  },
  'machine-dead': async (ctx) => ({ result: await ensureMachineDead(ctx.store, ctx.machine) }),
  // The handler has recorded the caller's presence already, as for every agent request.
  heartbeat: async () => ({}),
  'relation-units': async (ctx, body) => {
    // A unit observes only relations its own application is in.
    const unit = await ownUnit(ctx, body.unit);
    const relation = await getRelation(ctx.store, body.relation);
    if (!relation) return { members: [] };
    if (!relation.endpoints.some((e) => e.application === unit.application)) throw forbidden(`relation "${body.relation}"`);
    return readRelationUnits(ctx.store, unit, relation, {
      ...(body.cursor ? { cursor: body.cursor } : {}),
      ...(body.limit ? { limit: body.limit } : {}),
    });
  },
  'claim-leadership': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    return claimLeadership(ctx.store, body.unit, leaseMs(ctx));
  },
  'leader-settings': async (ctx, body) => {
    const unit = await ownUnit(ctx, body.unit);
    const current = await getLeaderSettings(ctx.store, unit.application);
    return { settings: current?.settings ?? {}, version: current?.version ?? 0 };
  },
  'read-app-settings': async (ctx, body) => {
    const unit = await ownUnit(ctx, body.unit);
    const relation = await getRelationById(ctx.store, body.relationId);
    if (!relation || !relation.endpoints.some((e) => e.application === unit.application)) throw forbidden(`relation ${body.relationId}`);
    return readAppSettings(ctx.store, { unit: unit.name, application: unit.application }, relation, body.application);
  },
  'set-application-status': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    await setApplicationStatus(ctx.store, body.unit, body.status);
    return {};
  },
  'application-status': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    return readApplicationStatus(ctx.store, body.unit);
  },
  'release-leadership': async (ctx, body) => {
    const unit = await ownUnit(ctx, body.unit);
    return releaseLeadership(ctx.store, body.unit, unit.application);
  },
  'set-unit-ports': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    return setUnitPorts(ctx.store, body.unit, body.changes);
  },
  'commit-hook': async (ctx, body) => {
    // Only the unit's own settings, ports, state and version, and its own application's leader
    // settings: keyed by the unit, so nothing else can be named.
    const unit = await ownUnit(ctx, body.unit);
    return commitHookChanges(ctx.store, body.unit, {
      settings: body.settings,
      ports: body.ports,
      ...(body.charmState !== undefined ? { charmState: body.charmState } : {}),
      ...(body.workloadVersion !== undefined ? { workloadVersion: body.workloadVersion } : {}),
      ...(body.leaderSettings ? { leaderSettings: { application: unit.application, changes: body.leaderSettings } } : {}),
      ...(body.appSettings?.length ? { appSettings: { application: unit.application, relations: body.appSettings } } : {}),
    });
  },
  'start-task': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    if (!(await getTask(ctx.store, body.task))) {
      // Expired (TTL) while still queued: out of the unit's queue, and the agent skips it.
      await forgetPendingTask(ctx.store, body.unit, body.task);
      return { id: body.task, unit: body.unit, status: 'cancelled', message: 'task expired before it ran' };
    }
    await ownTask(ctx, body.unit, body.task);
    return startTask(ctx.store, body.task);
  },
  'log-task': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    await ownTask(ctx, body.unit, body.task);
    await logTask(ctx.store, body.task, body.message);
    return {};
  },
  'finish-task': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    if (!(await getTask(ctx.store, body.task))) {
      // Expired while it ran: nothing left to record, and the agent must not retry forever.
      await forgetPendingTask(ctx.store, body.unit, body.task);
      return { id: body.task, unit: body.unit, status: body.status };
    }
    await ownTask(ctx, body.unit, body.task);
    return finishTask(ctx.store, body.task, {
      status: body.status,
      results: body.results,
      ...(body.message !== undefined ? { message: body.message } : {}),
    });
  },
  'unit-state': async (ctx, body) => {
    await ownUnit(ctx, body.unit);
    return { state: (await getUnitState(ctx.store, body.unit))?.state ?? {} };
  },
  'goal-state': async (ctx, body) => readGoalState(ctx.store, await ownUnit(ctx, body.unit)),
  log: async (ctx, body) => {
    if (body.unit !== undefined) await ownUnit(ctx, body.unit);
    const entity = body.unit !== undefined ? entityTag(body.unit) : `machine-${ctx.machine}`;
    await ctx.logs?.append(body.lines.map((line) => ({ entity, ...line })));
    return {};
  },
};
