// `drover status` as people read it: Juju 3.6's sections (Model, SAAS, App, Unit, Machine, Offer,
// and with --relations, Integration provider), subordinates indented under their principal
// (https://github.com/juju/juju/blob/3.6/cmd/juju/status/output_tabular.go). drover adds, for
// everything Dying, what it is blocked by, so nobody has to guess why it does not go away.
import { renderTable, statusStyle, styled, type Cell } from '../table.js';
import {
  allUnits,
  byCodePoint,
  type ApplicationDoc,
  type MachineDoc,
  type RelationDoc,
  type StatusDoc,
  type StatusValue,
  type UnitDoc,
} from '#shared/domain/status-document.js';
import { compareNatural } from '#shared/domain/natural-order.js';
import type { CrossModelSections } from './cross-model.js';
import { OFFER_HEADER, offerRows, SAAS_HEADER, saasRows } from './tabular-cross-model.js';

const byNumber = compareNatural;

/** The message, then for a Dying entity what holds it. */
function message(text: string | undefined, life: string | undefined, blockedBy: string[] | undefined): string {
  if (life !== 'dying' && life !== 'dead') return text ?? '';
  const dying = blockedBy?.length ? `${life}, blocked by: ${blockedBy.join('; ')}` : life;
  return text ? `${text} (${dying})` : dying;
}

const status = (value: StatusValue | undefined) => styled(value?.current ?? '', statusStyle(value?.current));

/** Units whose agent is running hooks or idle count as ready (Juju's Scale column). */
const isReady = (unit: UnitDoc) => ['idle', 'executing'].includes(unit['juju-status'].current);

/** Juju's model section: SLA, Timestamp and Notes (the model's status message) only when there is one. */
export function modelSection(doc: Pick<StatusDoc, 'model' | 'controller'>): Cell[][] {
  const { model } = doc;
  const columns: [string, string][] = [
    ['Model', model.name],
    ['Controller', model.controller],
    ['Cloud/Region', `${model.cloud ?? ''}${model.region ? `/${model.region}` : ''}`],
    ['Version', model.version ?? ''],
  ];
  if (model.sla) columns.push(['SLA', model.sla]);
  if (doc.controller?.timestamp) columns.push(['Timestamp', doc.controller.timestamp]);
  if (model['model-status']?.message) columns.push(['Notes', model['model-status'].message]);
  return [columns.map(([header]) => header), columns.map(([, value]) => value)];
}

/** Each section's header row. */
export const HEADERS = {
  applications: ['App', 'Version', 'Status', 'Scale', 'Charm', 'Channel', 'Rev', 'Exposed', 'Message'],
  units: ['Unit', 'Workload', 'Agent', 'Machine', 'Public address', 'Ports', 'Message'],
  machines: ['Machine', 'State', 'Address', 'Inst id', 'Base', 'AZ', 'Message'],
  relations: ['Integration provider', 'Requirer', 'Interface', 'Type', 'Message'],
};

/** The columns Juju right-aligns, by section: the App section's Scale and Rev. */
export const ALIGN_RIGHT: Partial<Record<keyof typeof HEADERS, readonly number[]>> = { applications: [3, 6] };

/** Juju's iaas Version column: the first line, at most 15 characters, cut with an ellipsis. */
const MAX_VERSION_WIDTH = 15;
function versionCell(version: string | undefined): string {
  const first = (version ?? '').split('\n')[0]!;
  return first.length > MAX_VERSION_WIDTH ? `${first.slice(0, MAX_VERSION_WIDTH - 3)}...` : first;
}

/**
 * Scale: all the application's units (subordinates too), and how many are ready; while units are
 * still being added in the background, out of all those wanted.
 */
export function appRow(name: string, app: ApplicationDoc, scale: { units: number; ready: number }): Cell[] {
  const { ready } = scale;
  const units = app.scale ?? scale.units;
  return [
    name,
    versionCell(app.version),
    status(app['application-status']),
    styled(ready === units ? String(units) : `${ready}/${units}`, ready === units ? undefined : 'yellow'),
    app['charm-name'],
    app['charm-channel'] ?? '',
    String(app['charm-rev']),
    app.exposed ? styled('yes', 'green') : 'no',
    message(app['application-status'].message, app.life, app['blocked-by']),
  ];
}

function appSection(doc: StatusDoc): Cell[][] {
  const units = allUnits(doc);
  const rows: Cell[][] = [HEADERS.applications];
  for (const name of Object.keys(doc.applications).sort()) {
    const mine = units.filter((u) => u.application === name).map((u) => u.unit);
    rows.push(appRow(name, doc.applications[name]!, { units: mine.length, ready: mine.filter(isReady).length }));
  }
  return rows;
}

// What Juju's agentDoing recognises in an executing agent's message: a hook the uniter names as
// `running <hook> hook` (unit hooks; relation hooks carry their endpoint and are not matched), or
// an action, `running action <name>`.
const UNIT_HOOKS =
  'install|start|config-changed|upgrade-charm|stop|remove|leader-elected|leader-deposed|leader-settings-changed|update-status|collect-metrics|meter-status-changed|pre-series-upgrade|post-series-upgrade|relation-created|relation-joined|relation-changed|relation-departed|relation-broken';
const HOOK_RE = new RegExp(`running (${UNIT_HOOKS}) hook`);
const ACTION_RE = /running action (.*)/;

/** What the unit's agent is doing, shown before its message: `(install) `; nothing when idle. */
function agentDoing(agent: StatusValue): string {
  if (agent.current !== 'executing') return '';
  const message = agent.message ?? '';
  return HOOK_RE.exec(message)?.[1] ?? ACTION_RE.exec(message)?.[1] ?? '';
}

/** Juju's unit message: the workload's, the agent's while allocating, prefixed by what the agent is doing. */
function unitMessage(unit: UnitDoc): string {
  const agent = unit['juju-status'];
  let text = unit['workload-status'].message ?? '';
  if (agent.current === 'allocating' && !text) text = agent.message ?? '';
  const doing = agentDoing(agent);
  return doing ? `(${doing}) ${text}` : text;
}

function unitRow(name: string, unit: UnitDoc, indent: string): Cell[] {
  const life = unit['juju-status'].life;
  return [
    `${indent}${name}${unit.leader ? '*' : ''}`,
    status(unit['workload-status']),
    status(unit['juju-status']),
    unit.machine ?? '',
    unit['public-address'] ?? '',
    (unit['open-ports'] ?? []).join(','),
    message(unitMessage(unit) || undefined, life, unit['blocked-by']),
  ];
}

/** Principal units in order, each followed by its subordinates, indented. */
export function unitRows(principals: [string, UnitDoc][]): Cell[][] {
  const rows: Cell[][] = [];
  for (const [name, unit] of [...principals].sort(([a], [b]) => byNumber(a, b))) {
    rows.push(unitRow(name, unit, ''));
    const subs = Object.entries(unit.subordinates ?? {}).sort(([a], [b]) => byNumber(a, b));
    for (const [subName, sub] of subs) rows.push(unitRow(subName, sub, '  '));
  }
  return rows;
}

function unitSection(doc: StatusDoc): Cell[][] {
  return [HEADERS.units, ...unitRows(Object.values(doc.applications).flatMap((app) => Object.entries(app.units ?? {})))];
}

const zoneOf = (m: MachineDoc) => m.hardware?.match(/(?:^| )availability-zone=(\S+)/)?.[1] ?? '';

/** Machines in order of their ids. */
export function machineRows(machines: Record<string, MachineDoc>): Cell[][] {
  return Object.keys(machines)
    .sort(byNumber)
    .map((id) => {
      const m = machines[id]!;
      // Juju shows a machine whose provisioning failed as down, with the provider's error as message.
      const failed = m['machine-status'].current === 'provisioning error';
      return [
        id,
        failed ? styled('down', 'red') : status(m['juju-status']),
        m['dns-name'] ?? '',
        m['instance-id'],
        m.base ? `${m.base.name}@${m.base.channel}` : '',
        zoneOf(m),
        message(m['machine-status'].message, m['juju-status'].life, m['blocked-by']),
      ];
    });
}

/** Relations sorted by provider, then requirer, as Juju's printRelations sorts them. */
export function relationRows(relations: RelationDoc[]): Cell[][] {
  return relations
    .map((relation) => {
      // Keys list the requirer first, then the provider; a peer relation has one endpoint.
      const [requirer, provider] = relation.key.split(' ') as [string, string | undefined];
      const type = !provider ? 'peer' : relation.scope === 'container' ? 'subordinate' : 'regular';
      return { provider: provider ?? requirer, requirer, type, relation };
    })
    .sort((a, b) => byCodePoint(a.provider, b.provider) || byCodePoint(a.requirer, b.requirer))
    .map(({ provider, requirer, type, relation }) => [
      provider,
      requirer,
      relation.interface ?? '',
      type,
      message(undefined, relation.life, relation['blocked-by']),
    ]);
}

export function renderTabular(doc: StatusDoc, options: { relations: boolean; colour: boolean }): string {
  const sections = [modelSection(doc)];
  const cross = doc as StatusDoc & Partial<CrossModelSections>;
  const saas = saasRows(cross['application-endpoints'] ?? {});
  if (saas.length) sections.push([SAAS_HEADER, ...saas]);
  if (Object.keys(doc.applications).length) sections.push(appSection(doc));
  const units = unitSection(doc);
  if (units.length > 1) sections.push(units);
  if (Object.keys(doc.machines).length) sections.push([HEADERS.machines, ...machineRows(doc.machines)]);
  const offers = offerRows(cross.offers ?? {});
  if (offers.length) sections.push([OFFER_HEADER, ...offers]);
  if (options.relations && doc.relations?.length) sections.push([HEADERS.relations, ...relationRows(doc.relations)]);
  return sections
    .map((rows) => renderTable(rows, options.colour, [], rows[0] === HEADERS.applications ? ALIGN_RIGHT.applications : []))
    .join('\n');
}

export const isEmptyModel = (doc: StatusDoc) => !Object.keys(doc.applications).length && !Object.keys(doc.machines).length;
