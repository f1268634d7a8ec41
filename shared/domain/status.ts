// The status document: Juju 3.6's `juju status --format=json` keys
// (https://github.com/juju/juju/blob/3.6/cmd/juju/status/formatted.go and formatter.go), built
// from a snapshot of the model, plus drover's `blocked-by` on everything that is Dying.
import {
  applicationWithUnits,
  byCodePoint,
  type ApplicationDoc,
  type ApplicationRelation,
  type MachineDoc,
  type RelationDoc,
  type StatusDoc,
  type StatusBase,
  type StatusValue,
  type UnitDoc,
} from './status-document.js';
import { displayBaseOfSeries } from './bases.js';
import { displayCharmUrl, parseCharmUrl } from './charm-url.js';
import { JUJU_VERSION } from './juju-version.js';
import { applicationBlockedBy, machineBlockedBy, modelBlockedBy, relationBlockedBy, unitBlockedBy } from './blocked-by.js';
import { formatConstraints, isEmptyConstraints } from './constraints.js';
import type { Application, Machine, Model, Relation, StatusInfo, Unit } from './entities.js';
import { isAgentSilent, presentMachineStatus, presentUnitStatuses, type Presence } from './presence.js';
import { modelStatus } from './models.js';
import { compareNatural } from './natural-order.js';

export interface StatusSnapshot {
  model: Model;
  applications: Application[];
  units: Unit[];
  machines: Machine[];
  relations: Relation[];
  /** Units in scope of each Dying relation (a few, for blocked-by). */
  scopes: Record<string, string[]>;
  /** When each machine's agent was last seen: presence (lost/down) is computed from it here. */
  presence: Presence;
  controller: string;
  /** Application name → the unit holding its leadership lease (status marks it `leader: true`). */
  leaders?: Record<string, string>;
}

/** What a document is computed for: the snapshot's presence, at the time of the read. */
export interface Context {
  presence: Presence;
  now: Date;
  /** Application name → its charm URL, for the units' `upgrading-from`. */
  charms: Map<string, string>;
  leaders: Record<string, string>;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** Juju's `02 Jan 2006 15:04:05Z07:00`, in UTC. */
export function formatSince(iso: string): string {
  const d = new Date(iso);
  return `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}Z`;
}

/** `agent`: a juju-status whose agent has started shows the agent's version, as Juju's does. */
function status(info: StatusInfo, life?: string, agent?: { started: boolean }): StatusValue {
  return {
    current: info.current,
    ...(info.message ? { message: info.message } : {}),
    since: formatSince(info.since),
    ...(agent?.started ? { version: JUJU_VERSION } : {}),
    ...(life && life !== 'alive' ? { life } : {}),
  };
}

/**
 * Whether an agent has started: a unit's once it is past `allocating`, a machine's once it is past
 * `pending` (Juju shows the agent's version from then on; before, there is no agent to have one).
 */
const unitAgentStarted = (unit: Pick<Unit, 'agentStatus'>) => ({ started: unit.agentStatus.current !== 'allocating' });
const machineAgentStarted = (m: Pick<Machine, 'agentStatus'>) => ({ started: m.agentStatus.current !== 'pending' });

/** A unit whose agent is in error shows the error as its workload status, and its agent idle; a silent one is lost (docs/agents.md). */
function unitStatuses(unit: Unit, ctx: Context) {
  const silent = unit.machine !== undefined && isAgentSilent(ctx.presence, unit.machine, ctx.now);
  const shown = presentUnitStatuses(unit, silent);
  return { 'workload-status': status(shown.workload), 'juju-status': status(shown.agent, unit.life, unitAgentStarted(unit)) };
}

const SEVERITY = ['error', 'blocked', 'waiting', 'maintenance', 'active', 'terminated', 'unknown'];

/** The most severe unit workload status, with that unit's message (core/status.DeriveStatus). */
const severityRank = (x: StatusInfo) => (SEVERITY.includes(x.current) ? SEVERITY.indexOf(x.current) : SEVERITY.length);

export function deriveApplicationStatus(units: Pick<Unit, 'agentStatus' | 'workloadStatus'>[], fallbackSince: string): StatusInfo {
  let worst: StatusInfo | undefined;
  for (const unit of units) {
    const s = unit.agentStatus.current === 'error' ? { ...unit.agentStatus, current: 'error' } : unit.workloadStatus;
    if (!worst || severityRank(s) < severityRank(worst)) worst = s;
  }
  return worst ?? { current: 'unknown', since: fallbackSince };
}

/** Juju 3's `base: {name: ubuntu, channel: "22.04"}`, where Juju 2.9 had `series`. */
function statusBase(series: string): { base?: StatusBase } {
  const base = displayBaseOfSeries(series);
  if (!base) return {};
  const [name = '', channel = ''] = base.split('@');
  return { base: { name, channel } };
}

export function machineDoc(m: Machine, ctx: Context): MachineDoc {
  const blocked = machineBlockedBy(m);
  return {
    'juju-status': status(presentMachineStatus(m, isAgentSilent(ctx.presence, m.id, ctx.now)), m.life, machineAgentStarted(m)),
    ...(m.addresses[0] ? { 'dns-name': m.addresses[0], 'ip-addresses': m.addresses } : {}),
    'instance-id': m.instanceId ?? 'pending',
    'machine-status': status(m.instanceStatus),
    'modification-status': { current: 'idle', since: formatSince(m.createdAt) },
    ...statusBase(m.series),
    ...(isEmptyConstraints(m.constraints) ? {} : { constraints: formatConstraints(m.constraints) }),
    ...(m.hardware ? { hardware: m.hardware } : {}),
    ...(blocked.length ? { 'blocked-by': blocked } : {}),
  };
}

export function unitDoc(unit: Unit, byName: Map<string, Unit>, ctx: Context): UnitDoc {
  const blocked = unitBlockedBy(unit);
  const subordinates: Record<string, UnitDoc> = {};
  for (const name of unit.subordinates) {
    const sub = byName.get(name);
    if (sub) subordinates[name] = unitDoc(sub, byName, ctx);
  }
  // Juju's `upgrading-from`: the charm the unit still runs while its application has a newer one.
  const { charms } = ctx;
  const upgrading = unit.charmUrl !== undefined && charms.has(unit.application) && unit.charmUrl !== charms.get(unit.application);
  return {
    ...unitStatuses(unit, ctx),
    // Juju's unitStatus puts `leader` right after the statuses (cmd/juju/status/formatted.go).
    ...(ctx.leaders[unit.application] === unit.name ? { leader: true } : {}),
    ...(upgrading ? { 'upgrading-from': displayCharmUrl(unit.charmUrl!) } : {}),
    ...(unit.machine !== undefined && !unit.principal ? { machine: unit.machine } : {}),
    ...(unit.openPorts.length ? { 'open-ports': unit.openPorts } : {}),
    ...(unit.publicAddress ? { 'public-address': unit.publicAddress } : {}),
    ...(Object.keys(subordinates).length ? { subordinates } : {}),
    ...(blocked.length ? { 'blocked-by': blocked } : {}),
  };
}

/**
 * The application's version (application-version-set): Juju shows the workload version its units
 * set most recently.
 */
export function applicationVersion(units: Pick<Unit, 'workloadVersion' | 'workloadVersionSince'>[]): string | undefined {
  let latest: Pick<Unit, 'workloadVersion' | 'workloadVersionSince'> | undefined;
  for (const u of units) {
    if (!u.workloadVersion || u.workloadVersionSince === undefined) continue;
    if (!latest || u.workloadVersionSince > latest.workloadVersionSince!) latest = u;
  }
  return latest?.workloadVersion;
}

/**
 * What an application's entry computes from all its units, folded a batch of units at a time in
 * the units' collection order (so a page reader can stop half way through a large application and
 * go on later): the derived status and version, and the tabular Scale column's counts.
 */
export interface UnitsSummary {
  units: number;
  /** Units whose agent, as shown, is idle or executing (Juju's Scale column). */
  ready: number;
  /** The most severe workload status so far (core/status.DeriveStatus). */
  worst?: StatusInfo;
  /** The workload version set most recently so far. */
  version?: { value: string; since: string };
}

/** The unit fields a summary reads (a projection of the unit item). */
export type SummaryUnit = Pick<
  Unit,
  'name' | 'life' | 'machine' | 'agentStatus' | 'workloadStatus' | 'workloadVersion' | 'workloadVersionSince'
>;

const READY = ['idle', 'executing'];

export function summarizeUnits(summary: UnitsSummary, units: SummaryUnit[], ctx: Pick<Context, 'presence' | 'now'>): UnitsSummary {
  const next = { ...summary };
  for (const unit of units) {
    next.units++;
    const silent = unit.machine !== undefined && isAgentSilent(ctx.presence, unit.machine, ctx.now);
    if (READY.includes(presentUnitStatuses(unit as Unit, silent).agent.current)) next.ready++;
    const worst = deriveApplicationStatus([unit], '');
    if (!next.worst || severityRank(worst) < severityRank(next.worst)) next.worst = worst;
    const version = applicationVersion([unit]);
    if (version !== undefined && (!next.version || unit.workloadVersionSince! > next.version.since))
      next.version = { value: version, since: unit.workloadVersionSince! };
  }
  return next;
}

export const emptySummary = (): UnitsSummary => ({ units: 0, ready: 0 });

/**
 * Juju 3's relations of an application: per endpoint, each related application with the
 * relation's interface and scope, sorted by application (a peer relation relates the application
 * to itself). Endpoints in Go's map order (sorted), as Juju's JSON has them.
 */
function applicationRelations(app: Application, relationsOfApp: Relation[]): Record<string, ApplicationRelation[]> {
  const byEndpoint = new Map<string, Map<string, ApplicationRelation>>();
  for (const key of app.relations) {
    const relation = relationsOfApp.find((r) => r.key === key);
    const mine = relation?.endpoints.find((e) => e.application === app.name);
    if (!relation || !mine) continue;
    const others = relation.endpoints.filter((e) => e !== mine).map((e) => e.application);
    const related = byEndpoint.get(mine.name) ?? new Map<string, ApplicationRelation>();
    for (const other of others.length ? others : [app.name])
      related.set(other, { 'related-application': other, interface: mine.interface, scope: relation.scope });
    byEndpoint.set(mine.name, related);
  }
  const out: Record<string, ApplicationRelation[]> = {};
  for (const endpoint of [...byEndpoint.keys()].sort(byCodePoint))
    out[endpoint] = [...byEndpoint.get(endpoint)!.values()].sort((a, b) => byCodePoint(a['related-application'], b['related-application']));
  return out;
}

/**
 * Juju's endpoint-bindings: the default (`""`) and every endpoint the charm declares, each bound
 * to the one space drover has, Juju's default `alpha`.
 */
function endpointBindings(app: Application): Record<string, string> {
  const names = [...new Set(app.charm.endpoints.map((e) => e.name))].sort(byCodePoint);
  return Object.fromEntries(['', ...names].map((name) => [name, 'alpha']));
}

/** An application's entry without its units (applicationWithUnits adds them where Juju has them). */
export function applicationDoc(app: Application, relationsOfApp: Relation[], summary: UnitsSummary): ApplicationDoc {
  const relations = applicationRelations(app, relationsOfApp);
  const principals = new Set<string>();
  if (app.subordinate)
    for (const relation of relationsOfApp)
      if (relation.scope === 'container' && app.relations.includes(relation.key))
        relation.endpoints.filter((e) => e.application !== app.name).forEach((e) => principals.add(e.application));
  const blocked = applicationBlockedBy(app, relationsOfApp);
  const version = summary.version?.value;
  return {
    // Juju 3.6 shows a Charmhub charm by its name alone, with its origin, revision and channel.
    charm: app.charmOrigin ? app.charm.name : displayCharmUrl(app.charmUrl),
    ...statusBase(app.series),
    'charm-origin': app.charmOrigin ? 'charmhub' : 'local',
    'charm-name': app.charm.name,
    'charm-rev': parseCharmUrl(app.charmUrl).revision,
    ...(app.charmOrigin ? { 'charm-channel': app.charmOrigin.channel } : {}),
    // Units still being added by an add-unit -n in the background: the scale wanted, where Juju
    // shows the scale it wants of an application.
    ...(app.pendingUnits ? { scale: app.unitCount + app.pendingUnits } : {}),
    exposed: app.exposed,
    ...(app.life !== 'alive' ? { life: app.life } : {}),
    // The leader's `status-set --application` wins; otherwise the most severe unit's (Juju).
    'application-status': status(
      app.status && app.status.current !== 'unknown' ? app.status : (summary.worst ?? { current: 'unknown', since: app.createdAt }),
    ),
    ...(Object.keys(relations).length ? { relations } : {}),
    // A subordinate related to no principal yet has none: Juju omits the empty list.
    ...(principals.size ? { 'subordinate-to': [...principals].sort() } : {}),
    // `units` goes here (applicationWithUnits).
    ...(version !== undefined ? { version } : {}),
    'endpoint-bindings': endpointBindings(app),
    ...(blocked.length ? { 'blocked-by': blocked } : {}),
  };
}

const byNumber = compareNatural;

/** Juju's model status: `available`, and `destroying` once the model is Dying (its life beside it, as entities show theirs). */
function modelStatusValue(model: Model, now: Date): StatusValue {
  const since = formatSince(now.toISOString());
  if (model.life === 'alive') return { current: modelStatus(model.life), since };
  return {
    current: modelStatus(model.life),
    message: model.force ? 'the model is being destroyed (forced)' : 'the model is being destroyed',
    since,
    life: model.life,
  };
}

/** The model's entry; a Dying model's blocked-by is added last (modelBlockedBy), when known. */
export function modelDoc(model: Model, controller: string, now: Date): StatusDoc['model'] {
  return {
    name: model.name,
    type: 'iaas',
    controller,
    cloud: 'drover',
    // The agent version drover claims, the one hooks see as JUJU_VERSION.
    version: JUJU_VERSION,
    'model-status': modelStatusValue(model, now),
    sla: 'unsupported',
  };
}

export const controllerDoc = (now: Date) => ({
  timestamp: `${two(now.getUTCHours())}:${two(now.getUTCMinutes())}:${two(now.getUTCSeconds())}Z`,
});

export function relationDoc(r: Relation, unitsInScope: string[]): RelationDoc {
  const blocked = relationBlockedBy(r, unitsInScope);
  return {
    id: r.id,
    key: r.key,
    interface: r.endpoints[0]?.interface,
    scope: r.scope,
    ...(r.life !== 'alive' ? { life: r.life } : {}),
    ...(blocked.length ? { 'blocked-by': blocked } : {}),
  };
}

export function buildStatus(snapshot: StatusSnapshot, now: Date): StatusDoc {
  const byName = new Map(snapshot.units.map((u) => [u.name, u]));
  const ctx: Context = {
    presence: snapshot.presence,
    now,
    charms: new Map(snapshot.applications.map((a) => [a.name, a.charmUrl])),
    leaders: snapshot.leaders ?? {},
  };
  const machines: Record<string, MachineDoc> = {};
  for (const m of [...snapshot.machines].sort((a, b) => byNumber(a.id, b.id))) machines[m.id] = machineDoc(m, ctx);
  const applications: Record<string, ApplicationDoc> = {};
  for (const app of [...snapshot.applications].sort((a, b) => a.name.localeCompare(b.name))) {
    const units = snapshot.units.filter((u) => u.application === app.name);
    const doc = applicationDoc(
      app,
      snapshot.relations.filter((r) => app.relations.includes(r.key)),
      summarizeUnits(emptySummary(), units, ctx),
    );
    const principalUnits: Record<string, UnitDoc> = {};
    if (!app.subordinate) for (const u of units) principalUnits[u.name] = unitDoc(u, byName, ctx);
    applications[app.name] = applicationWithUnits(doc, principalUnits);
  }
  const relations = snapshot.relations.map((r) => relationDoc(r, snapshot.scopes[r.key] ?? [])).sort((a, b) => a.id - b.id);
  // Machines in the order of their ids, as the status lists them (and as a paged read counts them).
  const modelBlocked = modelBlockedBy(snapshot.model, {
    ...snapshot,
    machines: [...snapshot.machines].sort((a, b) => byNumber(a.id, b.id)),
  });
  return {
    model: { ...modelDoc(snapshot.model, snapshot.controller, now), ...(modelBlocked.length ? { 'blocked-by': modelBlocked } : {}) },
    machines,
    applications,
    // drover's own: relations with their ids and blocked-by (Juju keeps them only per application).
    relations,
    storage: {},
    controller: controllerDoc(now),
  };
}
