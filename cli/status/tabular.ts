// `drover status` as people read it: Juju 2.9's sections (Model, App, Unit, Machine, and with
// --relations, Relation provider), subordinates indented under their principal. drover adds, for
// everything Dying, what it is blocked by, so nobody has to guess why it does not go away.
import { renderTable, statusStyle, styled, type Cell } from '../table.js';
import {
  allUnits,
  type ApplicationDoc,
  type MachineDoc,
  type RelationDoc,
  type StatusDoc,
  type StatusValue,
  type UnitDoc,
} from '#shared/domain/status-document.js';
import { compareNatural } from '#shared/domain/natural-order.js';

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

export function modelSection(doc: Pick<StatusDoc, 'model' | 'controller'>): Cell[][] {
  const { model } = doc;
  return [
    ['Model', 'Controller', 'Cloud/Region', 'Version', 'SLA', 'Timestamp'],
    [
      model.name,
      model.controller,
      `${model.cloud ?? ''}${model.region ? `/${model.region}` : ''}`,
      model.version ?? '',
      model.sla ?? '',
      doc.controller?.timestamp ?? '',
    ],
  ];
}

/** Each section's header row. */
export const HEADERS = {
  applications: ['App', 'Version', 'Status', 'Scale', 'Charm', 'Channel', 'Rev', 'Exposed', 'Message'],
  units: ['Unit', 'Workload', 'Agent', 'Machine', 'Public address', 'Ports', 'Message'],
  // Juju 3 shows a machine's base (ubuntu@22.04) where Juju 2.9 showed its series.
  machines: ['Machine', 'State', 'DNS', 'Inst id', 'Base', 'AZ', 'Message'],
  relations: ['Relation provider', 'Requirer', 'Interface', 'Type', 'Message'],
};

/**
 * Scale: all the application's units (subordinates too), and how many are ready; while units are
 * still being added in the background, out of all those wanted.
 */
export function appRow(name: string, app: ApplicationDoc, scale: { units: number; ready: number }): Cell[] {
  const { ready } = scale;
  const units = app.scale ?? scale.units;
  return [
    name,
    app.version ?? '',
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

function unitRow(name: string, unit: UnitDoc, indent: string): Cell[] {
  const life = unit['juju-status'].life;
  return [
    `${indent}${name}${unit.leader ? '*' : ''}`,
    status(unit['workload-status']),
    status(unit['juju-status']),
    unit.machine ?? '',
    unit['public-address'] ?? '',
    (unit['open-ports'] ?? []).join(','),
    message(unit['workload-status'].message, life, unit['blocked-by']),
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
        m.base ? `${m.base.name}@${m.base.channel}` : m.series,
        zoneOf(m),
        message(m['machine-status'].message, m['juju-status'].life, m['blocked-by']),
      ];
    });
}

/** Relations in order of their ids. */
export function relationRows(relations: RelationDoc[]): Cell[][] {
  return [...relations]
    .sort((a, b) => a.id - b.id)
    .map((relation) => {
      // Keys list the requirer first, then the provider; a peer relation has one endpoint.
      const [requirer, provider] = relation.key.split(' ') as [string, string | undefined];
      const type = !provider ? 'peer' : relation.scope === 'container' ? 'subordinate' : 'regular';
      return [provider ?? requirer, requirer, relation.interface ?? '', type, message(undefined, relation.life, relation['blocked-by'])];
    });
}

export function renderTabular(doc: StatusDoc, options: { relations: boolean; colour: boolean }): string {
  const sections = [modelSection(doc)];
  if (Object.keys(doc.applications).length) sections.push(appSection(doc));
  const units = unitSection(doc);
  if (units.length > 1) sections.push(units);
  if (Object.keys(doc.machines).length) sections.push([HEADERS.machines, ...machineRows(doc.machines)]);
  if (options.relations && doc.relations?.length) sections.push([HEADERS.relations, ...relationRows(doc.relations)]);
  return sections.map((rows) => renderTable(rows, options.colour)).join('\n');
}

export const isEmptyModel = (doc: StatusDoc) => !Object.keys(doc.applications).length && !Object.keys(doc.machines).length;
