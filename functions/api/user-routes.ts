// The user API: one route per operation, each a call into shared/state with the request already
// validated by its schema (shared/api/requests.ts).
import { requestedSeries } from '#shared/domain/bases.js';
import { configDefaults } from '#shared/domain/charm.js';
import { formatConstraints, parseConstraints } from '#shared/domain/constraints.js';
import { DroverError, invalidArgument, notFound } from '#shared/domain/errors.js';
import type { EntityResult, Operation, RequestOf } from '#shared/api/requests.js';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import { receiveCharm, type LocalCharmRequest } from './charm-upload.js';
import { charmFromCharmhub, charmhubSummary, refreshFromCharmhub } from './charmhub-routes.js';
import type { CharmhubSettings } from './charmhub-charm.js';
import { receiveResources, receiveResourceUploads, resourceRoutes } from './resource-routes.js';
import { formatLogLine, parseLogLevel, type LogSink } from '#shared/logs/log-sink.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setApplicationConfig, setExposed, setTrust } from '#shared/state/operations/application-config.js';
import { setApplicationConstraints } from '#shared/state/operations/application-constraints.js';
import { getApplicationConstraints } from '#shared/state/queries/application-constraints.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { forceDestroyApplication, forceDestroyMachine, forceDestroyUnit } from '#shared/state/operations/force.js';
import { addSshKeys, removeSshKeys, setModelConfig, setModelConstraints } from '#shared/state/operations/model.js';
import { AUTHORIZED_KEYS, listKeys } from '#shared/domain/ssh-keys.js';
import { getModelConstraints, requireModel } from '#shared/state/queries/model.js';
import { effectiveModelConfig } from '#shared/domain/model-config.js';
import { getModelDefaults } from '#shared/state/operations/model-defaults.js';
import { retryProvisioning } from '#shared/state/operations/provisioning.js';
import { getApplication } from '#shared/state/engine/reads.js';
import { resolveUnit } from '#shared/state/operations/resolve-unit.js';
import { ONE_SHOT_MAX_ENTITIES, readStatus } from '#shared/state/queries/status.js';
import { readStatusPageDoc } from '#shared/state/queries/status-pages.js';
import { readStatusLog } from '#shared/state/queries/status-log.js';
import type { Store } from '#shared/state/engine/store.js';
import { listStuck } from '#shared/state/queries/stuck.js';
import { readModelRevision } from '#shared/state/queries/model-revision.js';
import { upgradeCharm } from '#shared/state/operations/upgrade-charm.js';
import { modelRoutes } from './model-routes.js';
import { offerRoutes } from './offer-routes.js';
import { removeSaas } from '#shared/state/operations/offers.js';
import { secretRoutes } from './secret-routes.js';
import { storageRoutes } from './storage-routes.js';
import { applicationActions, execTargets, resolveLeaders } from './action-routes.js';
import { cancelTask, enqueueOperation } from '#shared/state/operations/action-tasks.js';
import { listOperations, readOperation, readTask } from '#shared/state/queries/action-tasks.js';
import { EXEC_ACTION } from '#shared/domain/operations.js';
import { readUnitDetails } from '#shared/state/queries/unit-relation-info.js';
import { ownValue } from '#shared/domain/own-keys.js';
import { parseStorageFlags, type StorageProvider } from '#shared/domain/storage.js';

export interface UserContext {
  store: Store;
  charms: CharmStore;
  controller: string;
  /** Dying longer than this is stuck (seconds). */
  stuckAfterSeconds: number;
  /** An agent silent this long shows as lost/down in status (seconds). */
  agentLostAfterSeconds: number;
  /** The agents' log, for debug-log. */
  logs?: LogSink;
  /** How the controller reaches Charmhub (default: DEFAULT_CHARMHUB_SETTINGS). */
  charmhub?: CharmhubSettings;
  /** Which storage pools the controller's models have (shared/domain/storage.ts); default: the local provider's. */
  storageProvider?: StorageProvider;
}

/** Juju's debug-log shows the last 10 lines unless asked to replay. */
const DEBUG_LOG_DEFAULT_LINES = 10;

type Route<O extends Operation> = (ctx: UserContext, body: RequestOf<O>) => Promise<unknown>;

/** Juju's bulk removals: every entity is tried, and each gets its own line. */
async function eachEntity(entities: string[], verb: string, remove: (entity: string) => Promise<unknown>): Promise<EntityResult[]> {
  const results: EntityResult[] = [];
  for (const entity of entities) {
    try {
      await remove(entity);
      results.push({ entity, ok: true, message: `removing ${verb} ${entity}` });
    } catch (e) {
      if (!(e instanceof DroverError)) throw e;
      results.push({ entity, ok: false, message: `removing ${verb} ${entity} failed: ${e.message}` });
    }
  }
  return results;
}

async function configView(store: Store, name: string) {
  const app = await getApplication(store, name);
  if (!app) throw notFound(`application "${name}" not found`);
  const defaults = configDefaults(app.charm);
  const settings: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(app.charm.config)) {
    const value = ownValue(app.config, key);
    settings[key] = {
      ...(option.default !== undefined ? { default: option.default } : {}),
      ...(option.description ? { description: option.description } : {}),
      source: value === undefined ? 'unset' : value === ownValue(defaults, key) ? 'default' : 'user',
      type: option.type,
      ...(value !== undefined ? { value } : {}),
    };
  }
  // Juju 3.6's application config: for a machine charm, `trust` alone.
  const trust = app.trust ?? false;
  const applicationConfig = {
    trust: {
      default: false,
      description: 'Does this application have access to trusted credentials',
      source: trust ? 'user' : 'default',
      type: 'bool',
      value: trust,
    },
  };
  return { application: name, 'application-config': applicationConfig, charm: app.charm.name, settings };
}

const userRoutes: { [O in Operation]: Route<O> } = {
  ...modelRoutes,
  ...offerRoutes,
  'remove-saas': async (ctx, body) => ({
    results: await eachEntity(body.names, 'SAAS application', (name) => removeSaas(ctx.store, name)),
  }),
  ...secretRoutes,
  ...storageRoutes,
  'ssh-keys': async (ctx, body) => ({
    keys: listKeys((await requireModel(ctx.store)).config?.[AUTHORIZED_KEYS], body.full === 'true'),
  }),
  'add-ssh-keys': (ctx, body) => addSshKeys(ctx.store, body.keys),
  'remove-ssh-keys': (ctx, body) => removeSshKeys(ctx.store, body.ids),
  status: (ctx, body) => {
    const selected = body.application || body.unit || body.machine;
    if (body.cursor !== undefined || body.limit !== undefined) {
      if (selected) throw invalidArgument('status selectors are answered in one response: send them without cursor or limit');
      return readStatusPageDoc(ctx.store, {
        ...(body.cursor !== undefined ? { cursor: body.cursor } : {}),
        ...(body.limit !== undefined ? { limit: body.limit } : {}),
        controller: ctx.controller,
        agentLostAfterSeconds: ctx.agentLostAfterSeconds,
      });
    }
    return readStatus(ctx.store, {
      // A client that does not read status a page at a time gets a small model's whole, or a clear error.
      maxEntities: ONE_SHOT_MAX_ENTITIES,
      controller: ctx.controller,
      agentLostAfterSeconds: ctx.agentLostAfterSeconds,
      ...(selected ? { select: { applications: body.application ?? [], units: body.unit ?? [], machines: body.machine ?? [] } } : {}),
    });
  },
  stuck: (ctx) => listStuck(ctx.store, ctx.stuckAfterSeconds),
  'model-revision': async (ctx, body) => {
    const revision = await readModelRevision(ctx.store);
    return { revision, ...(body.since !== undefined ? { changed: revision !== body.since } : {}) };
  },
  deploy: async (ctx, body) => {
    const requested = requestedSeries(body);
    const received = 'charmhub' in body.charm ? await charmFromCharmhub(ctx, body.charm.charmhub, requested, body.resources) : undefined;
    const { charm, charmArchive } = received ?? (await receiveCharm(ctx.charms, body.charm as LocalCharmRequest));
    const series = requested ?? received?.series;
    const uploaded = body.resources ? await receiveResources(ctx, charm, body.resources) : undefined;
    const resources = received || uploaded ? { ...received?.resources, ...uploaded } : undefined;
    const result = await deploy(
      ctx.store,
      {
        charm,
        ...(body.name ? { name: body.name } : {}),
        ...(series ? { series } : {}),
        ...(body.constraints !== undefined ? { constraints: parseConstraints(body.constraints) } : {}),
        ...(body.config ? { config: body.config } : {}),
        ...(body.numUnits !== undefined ? { numUnits: body.numUnits } : {}),
        ...(body.to ? { to: body.to } : {}),
        ...(charmArchive ? { charmArchive } : {}),
        ...(body.trust ? { trust: true } : {}),
        ...(resources && Object.keys(resources).length ? { resources } : {}),
        ...(received ? { charmOrigin: received.origin } : {}),
        ...(body.storage ? { storage: parseStorageFlags(body.storage) } : {}),
        storageProvider: ctx.storageProvider ?? 'local',
      },
      { background: true },
    );
    return received ? { ...result, charmhub: charmhubSummary(received) } : result;
  },
  'charm-upload': (ctx, body) => ctx.charms.uploadTarget(body.sha256, body.size),
  ...resourceRoutes,
  'upgrade-charm': async (ctx, body) => {
    if ('charmhub' in body.charm)
      return refreshFromCharmhub(ctx, body.application, body.charm.charmhub, {
        forceUnits: body.forceUnits === true,
        ...(body.resources ? { uploads: body.resources } : {}),
      });
    const { charm, charmArchive } = await receiveCharm(ctx.charms, body.charm);
    const uploads = body.resources ? await receiveResourceUploads(ctx, charm, body.resources) : undefined;
    return upgradeCharm(ctx.store, body.application, {
      charm,
      ...(charmArchive ? { charmArchive } : {}),
      ...(body.forceUnits ? { forceUnits: true } : {}),
      ...(body.switch ? { switch: true } : {}),
      ...(uploads ? { uploads } : {}),
    });
  },
  'add-unit': (ctx, body) =>
    addUnits(ctx.store, body.application, {
      ...(body.count ? { count: body.count } : {}),
      ...(body.to ? { to: body.to } : {}),
      background: true,
    }),
  'add-machine': async (ctx, body) => {
    const series = requestedSeries(body);
    return {
      machines: await addMachines(ctx.store, {
        ...(body.count ? { count: body.count } : {}),
        ...(series ? { series } : {}),
        ...(body.constraints !== undefined ? { constraints: parseConstraints(body.constraints) } : {}),
      }),
    };
  },
  'remove-unit': async (ctx, body) => ({
    results: await eachEntity(body.units, 'unit', (u) => {
      const options = body.destroyStorage ? { destroyStorage: true } : {};
      return body.force ? forceDestroyUnit(ctx.store, u, options) : destroyUnit(ctx.store, u, options);
    }),
  }),
  'remove-application': async (ctx, body) => ({
    results: await eachEntity(body.applications, 'application', (a) => {
      const options = body.destroyStorage ? { destroyStorage: true } : {};
      return body.force ? forceDestroyApplication(ctx.store, a, options) : destroyApplication(ctx.store, a, options);
    }),
  }),
  'remove-machine': async (ctx, body) => ({
    results: await eachEntity(body.machines, 'machine', (m) =>
      body.force ? forceDestroyMachine(ctx.store, m) : destroyMachine(ctx.store, m),
    ),
  }),
  relate: (ctx, body) => addRelation(ctx.store, body.endpoints),
  'remove-relation': (ctx, body) => destroyRelation(ctx.store, 'id' in body ? body.id : body.endpoints),
  'set-constraints': async (ctx, body) => {
    await setApplicationConstraints(ctx.store, body.application, parseConstraints(body.constraints));
    return {};
  },
  'get-constraints': async (ctx, body) => ({
    constraints: formatConstraints(await getApplicationConstraints(ctx.store, body.application)),
  }),
  'set-model-constraints': async (ctx, body) => {
    await setModelConstraints(ctx.store, parseConstraints(body.constraints));
    return {};
  },
  'get-model-constraints': async (ctx) => ({ constraints: formatConstraints(await getModelConstraints(ctx.store)) }),
  'model-config': async (ctx, body) => {
    const config =
      body.set || body.reset
        ? await setModelConfig(ctx.store, { ...(body.set ? { set: body.set } : {}), ...(body.reset ? { reset: body.reset } : {}) })
        : (await requireModel(ctx.store)).config;
    return { config: effectiveModelConfig(config, (await getModelDefaults(ctx.store))?.config) };
  },
  config: async (ctx, body) => {
    if (!body.set && !body.reset) return configView(ctx.store, body.application);
    return setApplicationConfig(ctx.store, body.application, {
      ...(body.set ? { set: body.set } : {}),
      ...(body.reset ? { reset: body.reset } : {}),
    });
  },
  resolved: async (ctx, body) => {
    if ('machine' in body) {
      await retryProvisioning(ctx.store, body.machine, body.constraints !== undefined ? parseConstraints(body.constraints) : undefined);
      return {};
    }
    for (const unit of body.units) await resolveUnit(ctx.store, unit, body.noRetry ? 'no-hooks' : 'retry-hooks');
    return {};
  },
  'retry-provisioning': async (ctx, body) => {
    for (const machine of body.machines) await retryProvisioning(ctx.store, machine);
    return {};
  },
  trust: async (ctx, body) => {
    await setTrust(ctx.store, body.application, body.trust);
    return {};
  },
  expose: async (ctx, body) => {
    await setExposed(ctx.store, body.application, true);
    return {};
  },
  unexpose: async (ctx, body) => {
    await setExposed(ctx.store, body.application, false);
    return {};
  },
  'status-log': async (ctx, body) => {
    // Juju's `--type unit` is the unit's workload and agent together; no type: the entity's all.
    const type = body.type === 'unit' || body.type === undefined ? undefined : body.type === 'application' ? 'workload' : body.type;
    const entries = await readStatusLog(ctx.store, body.entity, { ...(type ? { type } : {}), limit: body.n ?? 20 });
    return {
      entries: entries.map((e) => ({ time: e.time, type: e.type, status: e.status, ...(e.message ? { message: e.message } : {}) })),
    };
  },
  run: async (ctx, body) =>
    enqueueOperation(ctx.store, {
      action: body.action,
      units: await resolveLeaders(ctx.store, body.units),
      parameters: body.parameters ?? {},
    }),
  exec: async (ctx, body) => {
    const { units, machineOf } = await execTargets(ctx.store, body);
    const queued = await enqueueOperation(ctx.store, {
      action: EXEC_ACTION,
      units,
      // Juju's juju-exec takes its timeout in nanoseconds; drover's agents take seconds.
      parameters: { command: body.command, timeout: body.timeout ?? 300 },
    });
    return { ...queued, ...(Object.keys(machineOf).length ? { machineOf } : {}) };
  },
  'cancel-task': async (ctx, body) => {
    const tasks = [];
    for (const id of body.ids) tasks.push(await cancelTask(ctx.store, id));
    return { tasks };
  },
  'show-task': (ctx, body) => readTask(ctx.store, body.id),
  'show-unit': (ctx, body) => readUnitDetails(ctx.store, body.unit),
  'show-operation': (ctx, body) => readOperation(ctx.store, body.id),
  operations: async (ctx, body) => ({ operations: await listOperations(ctx.store, body.limit) }),
  actions: (ctx, body) => applicationActions(ctx.store, body.application),
  'debug-log': async (ctx, body) => {
    if (!ctx.logs) throw new DroverError('not-supported', 'this controller keeps no agent logs');
    const level = body.level !== undefined ? parseLogLevel(body.level) : undefined;
    if (body.level !== undefined && !level)
      throw new DroverError('invalid-argument', `unknown log level "${body.level}"; use TRACE, DEBUG, INFO, WARNING, ERROR or CRITICAL`);
    const page = await ctx.logs.read({
      model: ctx.store.model,
      limit: body.limit ?? DEBUG_LOG_DEFAULT_LINES,
      ...(body.after !== undefined ? { after: body.after } : {}),
      ...(body.since !== undefined ? { since: body.since } : {}),
      ...(body.include ? { include: body.include } : {}),
      ...(body.exclude ? { exclude: body.exclude } : {}),
      ...(level ? { level } : {}),
    });
    return { lines: page.records.map(formatLogLine), cursor: page.cursor };
  },
};

/** The one way into the user routes: the operation's route, given its request as its schema parsed it. */
export function runUserRoute<O extends Operation>(op: O, ctx: UserContext, body: RequestOf<O>): Promise<unknown> {
  return userRoutes[op](ctx, body);
}
