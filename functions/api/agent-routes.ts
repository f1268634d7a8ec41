// The agent API (docs/architecture.md, 'Agents are least-privileged'): one route per operation,
// each declaring what its request touches (`touches`, checked against the caller's machine by
// functions/api/agent-authorization.ts before `run`), and `run` given only what that check found.
// runAgentRoute() is the one way in.
import type { AgentOperation, AgentRequestOf } from '#shared/api/agent-requests.js';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authorize, forbidden, type Authorized, type Touches } from './agent-authorization.js';
import { readAheadRefs, viewReadAheadRefs, type ItemsRead } from './agent-read-ahead.js';
import { charmDownloadsFor } from './view-charm-downloads.js';
import { resourceDownload } from './resource-download.js';
import { agentSecretRoutes } from './agent-secret-routes.js';
import type { EntityRef } from '#shared/domain/plan.js';
import type { Machine, Relation, Unit } from '#shared/domain/entities.js';
import { notFound } from '#shared/domain/errors.js';
import { entityTag, type LogSink } from '#shared/logs/log-sink.js';
import { setMachineAgentStatus, setUnitStatus } from '#shared/state/operations/agent-status.js';
import { destroyUnitByAgent } from '#shared/state/operations/destroy-unit.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureMachineDead } from '#shared/state/operations/machine-dead.js';
import { getMachine, getUnitState } from '#shared/state/engine/reads.js';
import { readGoalState } from '#shared/state/queries/goal-state.js';
import { readRelationUnits } from '#shared/state/queries/relation-units.js';
import { writeSettings } from '#shared/state/operations/relation-settings.js';
import { readSettings } from '#shared/state/queries/relation-settings.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { clearResolved } from '#shared/state/operations/resolve-unit.js';
import { commitHookChanges } from '#shared/state/operations/commit-hook.js';
import type { Store } from '#shared/state/engine/store.js';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import { ensureSubordinateDying } from '#shared/state/operations/subordinate-dying.js';
import { setUnitCharm } from '#shared/state/operations/unit-charm.js';
import { reportUnit } from '#shared/state/operations/unit-report.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { setUnitPorts } from '#shared/state/operations/unit-ports.js';
import { addUnitStorage, storageAttached, storageDetached } from '#shared/state/operations/unit-storage.js';
import { finishTask, forgetPendingTask, logTask, startTask } from '#shared/state/operations/action-tasks.js';
import { claimLeadership, releaseLeadership } from '#shared/state/operations/leadership.js';
import { getLeaderSettings } from '#shared/state/queries/leadership.js';
import { readMachineView } from '#shared/state/queries/machine-view.js';
import { readAppSettings } from '#shared/state/queries/app-settings.js';
import { readApplicationStatus } from '#shared/state/queries/application-status.js';
import { setApplicationStatus } from '#shared/state/operations/application-status.js';
import { DEFAULT_LEASE_SECONDS } from '#shared/domain/leadership.js';
import type { StorageProvider } from '#shared/domain/storage.js';

export interface AgentContext {
  store: Store;
  /** Where charm archives are, and the URLs to download them from. */
  charms: CharmStore;
  /** The calling agent's machine, established by its credential. */
  machine: string;
  /** That machine's item, as the request read it to establish that (absent: routes read it). */
  callerMachine?: Machine;
  /** What the request read with that machine for its authorization (absent: authorize reads it). */
  reads?: ItemsRead;
  /** The length of a leadership lease (shared/domain/leadership.ts); default DEFAULT_LEASE_SECONDS. */
  leadershipLeaseSeconds?: number;
  /** Where agents' log lines go (debug-log); absent: they are dropped. */
  logs?: LogSink;
  /** Which storage pools the model has, for the storage-add hook tool; default: the local provider's. */
  storageProvider?: StorageProvider;
}

const leaseMs = (ctx: AgentContext) => (ctx.leadershipLeaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;

export interface AgentRoute<O extends AgentOperation> {
  touches: Touches<AgentRequestOf<O>>;
  run: (ctx: AgentContext, body: AgentRequestOf<O>, owned: Authorized) => Promise<unknown>;
  /** What to read with the caller's machine (agent-read-ahead.ts); absent: what `touches` will read. */
  readAhead?: (event: APIGatewayProxyEventV2) => EntityRef[];
}

/** The unit a route declared: authorize() found it on the caller's machine. */
function unitOf(owned: Authorized): Unit {
  if (!owned.unit) throw new Error('the route declares no unit');
  return owned.unit;
}

/** A relation the request named, found and checked; a missing one is refused as not the unit's. */
function relationOf(owned: Authorized, ref: string | number): Relation {
  const relation = owned.relations.get(ref);
  if (!relation) throw forbidden(typeof ref === 'number' ? `relation ${ref}` : `relation "${ref}"`);
  return relation;
}

const unit = <B extends { unit?: string }>(body: B) => body.unit;
const caller = { machine: 'caller' } as const;

export const agentRoutes: { [O in AgentOperation]: AgentRoute<O> } = {
  view: {
    touches: caller,
    // What the agent's last view showed, which this view most likely reads again.
    readAhead: viewReadAheadRefs,
    run: async (ctx) => {
      const machine = ctx.callerMachine ?? (await getMachine(ctx.store, ctx.machine));
      if (!machine) throw notFound(`machine ${ctx.machine} not found`);
      const { model, units, applications, relations, leadership } = await readMachineView(ctx.store, machine, ctx.reads);
      const charmDownloads = await charmDownloadsFor(ctx.charms, units, applications);
      // Never hand the credential hash back, even to its own agent.
      const { agentCredentialHash: _hash, ...visible } = machine;
      // Hooks see the model's name as JUJU_MODEL_NAME and its uuid as JUJU_MODEL_UUID.
      // The model's config tells the unit agents their update-status interval; a change hints every
      // machine (shared/messaging/hint-plan.ts), so they read it again at once.
      return {
        model: model?.name ?? ctx.store.model,
        ...(model?.uuid ? { modelUuid: model.uuid } : {}),
        machine: visible,
        units,
        applications,
        relations,
        leadership,
        modelConfig: model?.config ?? {},
        ...(Object.keys(charmDownloads).length > 0 ? { charmDownloads } : {}),
      };
    },
  },
  'set-unit-status': {
    touches: { unit },
    run: async (ctx, body) => {
      await setUnitStatus(ctx.store, body.unit, {
        ...(body.agent ? { agent: body.agent } : {}),
        ...(body.workload ? { workload: body.workload } : {}),
      });
      return {};
    },
  },
  report: {
    touches: { unit },
    run: async (ctx, body) => {
      const { applied } = await reportUnit(ctx.store, body.unit, {
        id: body.id,
        statuses: body.statuses ?? [],
        ...(body.charmUrl !== undefined ? { charmUrl: body.charmUrl } : {}),
      });
      // The lines go only with the transaction that took the report: a report sent again
      // (its answer lost) ships none a second time. The price: should this process die between
      // the two, the lines are on the machine (its agent's log) and not in debug-log.
      if (applied && (body.lines?.length || body.machineLines?.length)) {
        const model = ctx.store.model;
        const [unitEntity, machineEntity] = [entityTag(body.unit), `machine-${ctx.machine}`];
        await ctx.logs?.append([
          ...(body.machineLines ?? []).map((line) => ({ model, entity: machineEntity, ...line })),
          ...(body.lines ?? []).map((line) => ({ model, entity: unitEntity, ...line })),
        ]);
      }
      return { applied };
    },
  },
  'set-machine-status': {
    touches: caller,
    run: async (ctx, body) => {
      await setMachineAgentStatus(ctx.store, ctx.machine, body.status);
      return {};
    },
  },
  'enter-scope': {
    touches: { unit, relations: (body) => [body.relation] },
    run: (ctx, body) => enterScope(ctx.store, body.unit, body.relation, body.settings),
  },
  'leave-scope': {
    // A relation already removed is left already: the route answers as leaveScope does.
    touches: { unit, relations: (body) => [body.relation] },
    run: (ctx, body) => leaveScope(ctx.store, body.unit, body.relation),
  },
  'read-settings': {
    // A hook may read the settings of any unit in a relation its own unit's application is in.
    touches: { unit, relations: (body) => [body.relationId] },
    run: async (ctx, body, owned) => {
      const relation = relationOf(owned, body.relationId);
      return readSettings(ctx.store, body.relationId, body.of, relation);
    },
  },
  'write-settings': {
    touches: { unit, relations: (body) => [body.relationId] },
    run: (ctx, body) => writeSettings(ctx.store, body.relationId, body.unit, body.changes),
  },
  'destroy-unit': { touches: { unit }, run: async (ctx, body) => ({ result: await destroyUnitByAgent(ctx.store, body.unit) }) },
  'subordinate-dying': { touches: { unit }, run: async (ctx, body) => ({ result: await ensureSubordinateDying(ctx.store, body.unit) }) },
  'unit-dead': { touches: { unit }, run: async (ctx, body) => ({ result: await ensureUnitDead(ctx.store, body.unit) }) },
  'remove-unit': { touches: { unit }, run: (ctx, body) => removeUnit(ctx.store, body.unit) },
  'clear-resolved': {
    touches: { unit },
    run: async (ctx, body) => {
      await clearResolved(ctx.store, body.unit);
      return {};
    },
  },
  'charm-url': {
    touches: { unit, charm: (body) => body.charm },
    run: async (ctx, body) => ({ url: await ctx.charms.downloadUrl(body.charm) }),
  },
  'resource-url': {
    // Only the resources of the unit's own application: the route reads no other.
    touches: { unit },
    run: (ctx, body, owned) => resourceDownload(ctx.store, ctx.charms, unitOf(owned).application, body.resource),
  },
  'set-unit-charm': {
    touches: { unit },
    run: async (ctx, body) => {
      await setUnitCharm(ctx.store, body.unit, body.charmUrl);
      return {};
    },
  },
  'machine-dead': { touches: caller, run: async (ctx) => ({ result: await ensureMachineDead(ctx.store, ctx.machine) }) },
  // The handler has recorded the caller's presence already, as for every agent request.
  heartbeat: { touches: caller, run: async () => ({}) },
  'relation-units': {
    // A unit observes only relations its own application is in; a removed one has no members.
    touches: { unit, relations: (body) => [body.relation] },
    run: async (ctx, body, owned) => {
      const relation = owned.relations.get(body.relation);
      if (!relation) return { members: [] };
      return readRelationUnits(ctx.store, unitOf(owned), relation, {
        ...(body.cursor ? { cursor: body.cursor } : {}),
        ...(body.limit ? { limit: body.limit } : {}),
      });
    },
  },
  'claim-leadership': { touches: { unit }, run: (ctx, body) => claimLeadership(ctx.store, body.unit, leaseMs(ctx)) },
  'leader-settings': {
    touches: { unit },
    run: async (ctx, _body, owned) => {
      const current = await getLeaderSettings(ctx.store, unitOf(owned).application);
      return { settings: current?.settings ?? {}, version: current?.version ?? 0 };
    },
  },
  'read-app-settings': {
    touches: { unit, relations: (body) => [body.relationId] },
    run: async (ctx, body, owned) => {
      const unit = unitOf(owned);
      const relation = relationOf(owned, body.relationId);
      return readAppSettings(ctx.store, { unit: unit.name, application: unit.application }, relation, body.application);
    },
  },
  'set-application-status': {
    touches: { unit },
    run: async (ctx, body) => {
      await setApplicationStatus(ctx.store, body.unit, body.status);
      return {};
    },
  },
  'application-status': { touches: { unit }, run: (ctx, body) => readApplicationStatus(ctx.store, body.unit) },
  'release-leadership': {
    touches: { unit },
    run: (ctx, body, owned) => releaseLeadership(ctx.store, body.unit, unitOf(owned).application),
  },
  'set-unit-ports': { touches: { unit }, run: (ctx, body) => setUnitPorts(ctx.store, body.unit, body.changes) },
  'commit-hook': {
    // The unit's own settings in relations its application is in, its ports, state and version,
    // and its own application's leader settings and bags.
    touches: {
      unit,
      relations: (body) => [...body.settings.map((s) => s.relationId), ...(body.appSettings ?? []).map((s) => s.relationId)],
    },
    run: (ctx, body, owned) => {
      const unit = unitOf(owned);
      return commitHookChanges(ctx.store, body.unit, {
        settings: body.settings,
        ports: body.ports,
        ...(body.charmState !== undefined ? { charmState: body.charmState } : {}),
        ...(body.workloadVersion !== undefined ? { workloadVersion: body.workloadVersion } : {}),
        ...(body.leaderSettings ? { leaderSettings: { application: unit.application, changes: body.leaderSettings } } : {}),
        ...(body.appSettings?.length ? { appSettings: { application: unit.application, relations: body.appSettings } } : {}),
      });
    },
  },
  'start-task': {
    touches: { unit, task: (body) => body.task },
    run: async (ctx, body, owned) => {
      if (!owned.task) {
        // Expired (TTL) while still queued: out of the unit's queue, and the agent skips it.
        await forgetPendingTask(ctx.store, body.unit, body.task);
        return { id: body.task, unit: body.unit, status: 'cancelled', message: 'task expired before it ran' };
      }
      return startTask(ctx.store, body.task);
    },
  },
  'log-task': {
    touches: { unit, task: (body) => body.task },
    run: async (ctx, body, owned) => {
      if (!owned.task) throw notFound(`task ${body.task} not found`);
      await logTask(ctx.store, body.task, body.message);
      return {};
    },
  },
  'finish-task': {
    touches: { unit, task: (body) => body.task },
    run: async (ctx, body, owned) => {
      if (!owned.task) {
        // Expired while it ran: nothing left to record, and the agent must not retry forever.
        await forgetPendingTask(ctx.store, body.unit, body.task);
        return { id: body.task, unit: body.unit, status: body.status };
      }
      return finishTask(ctx.store, body.task, {
        status: body.status,
        results: body.results,
        ...(body.message !== undefined ? { message: body.message } : {}),
      });
    },
  },
  'unit-state': {
    touches: { unit },
    run: async (ctx, body) => ({ state: (await getUnitState(ctx.store, body.unit))?.state ?? {} }),
  },
  'goal-state': { touches: { unit }, run: (ctx, _body, owned) => readGoalState(ctx.store, unitOf(owned)) },
  log: {
    // The machine agent's own lines name no unit; a unit's lines must be from a unit on the machine.
    touches: { machine: 'caller', unit },
    run: async (ctx, body) => {
      const entity = body.unit !== undefined ? entityTag(body.unit) : `machine-${ctx.machine}`;
      await ctx.logs?.append(body.lines.map((line) => ({ model: ctx.store.model, entity, ...line })));
      return {};
    },
  },
  // The attachment is keyed by (storage, unit): with the unit the caller's, so is the attachment.
  'storage-attached': { touches: { unit }, run: (ctx, body) => storageAttached(ctx.store, body.unit, body.storage, body.location) },
  'storage-detached': { touches: { unit }, run: (ctx, body) => storageDetached(ctx.store, body.unit, body.storage) },
  'storage-add': {
    touches: { unit },
    run: async (ctx, body) => ({
      storage: await addUnitStorage(ctx.store, body.unit, body.name, { count: body.count }, ctx.storageProvider ?? 'local'),
    }),
  },
  ...agentSecretRoutes,
};

/** The one way to run an agent route: what it touches is checked first, then it runs. */
export async function runAgentRoute<O extends AgentOperation>(op: O, ctx: AgentContext, body: AgentRequestOf<O>): Promise<unknown> {
  const route = agentRoutes[op];
  const owned = await authorize(ctx.store, ctx.machine, op, route.touches, body, ctx.reads);
  return route.run(ctx, body, owned);
}

/** What `op` will read, to read with the caller's machine (agent-read-ahead.ts): its own choice, else its authorization's. */
export function readAheadOf(op: AgentOperation, event: APIGatewayProxyEventV2): EntityRef[] {
  const { touches, readAhead } = agentRoutes[op];
  if (readAhead) return readAhead(event);
  return readAheadRefs(event, { unit: touches.unit !== undefined, charm: touches.charm !== undefined });
}
