// `drover status` as people read it: Juju 2.9's sections (Model, App, Unit, Machine, and with
// --relations, Relation provider), subordinates indented under their principal. drover adds, for
// everything Dying, what it is blocked by, so nobody has to guess why it does not go away.
import { renderTable, statusStyle, styled, type Cell } from '../table.js';
import { allUnits, type MachineDoc, type StatusDoc, type StatusValue, type UnitDoc } from '../../shared/domain/status-document.js';

const byNumber = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** The message, then for a Dying entity what holds it. */
function message(text: string | undefined, life: string | undefined, blockedBy: string[] | undefined): string {
  if (life !== 'dying' && life !== 'dead') return text ?? '';
  const dying = blockedBy?.length ? `${life}, blocked by: ${blockedBy.join('; ')}` : life;
  return text ? `${text} (${dying})` : dying;
}

const status = (value: StatusValue | undefined) => styled(value?.current ?? '', statusStyle(value?.current));

/** Units whose agent is running hooks or idle count as ready (Juju's Scale column). */
const isReady = (unit: UnitDoc) => ['idle', 'executing'].includes(unit['juju-status'].current);

function modelSection(doc: StatusDoc): Cell[][] {
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

function appSection(doc: StatusDoc): Cell[][] {
  const units = allUnits(doc);
  const rows: Cell[][] = [['App', 'Version', 'Status', 'Scale', 'Charm', 'Channel', 'Rev', 'Exposed', 'Message']];
  for (const name of Object.keys(doc.applications).sort()) {
    const app = doc.applications[name]!;
    const mine = units.filter((u) => u.application === name).map((u) => u.unit);
    const ready = mine.filter(isReady).length;
    const scale = ready === mine.length ? String(mine.length) : `${ready}/${mine.length}`;
    rows.push([
      name,
      app.version ?? '',
      status(app['application-status']),
      styled(scale, ready === mine.length ? undefined : 'yellow'),
      app['charm-name'],
      app['charm-channel'] ?? '',
      String(app['charm-rev']),
      app.exposed ? styled('yes', 'green') : 'no',
      message(app['application-status'].message, app.life, app['blocked-by']),
    ]);
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

function unitSection(doc: StatusDoc): Cell[][] {
  const rows: Cell[][] = [['Unit', 'Workload', 'Agent', 'Machine', 'Public address', 'Ports', 'Message']];
  const principals = Object.values(doc.applications).flatMap((app) => Object.entries(app.units ?? {}));
  for (const [name, unit] of principals.sort(([a], [b]) => byNumber(a, b))) {
    rows.push(unitRow(name, unit, ''));
    const subs = Object.entries(unit.subordinates ?? {}).sort(([a], [b]) => byNumber(a, b));
    for (const [subName, sub] of subs) rows.push(unitRow(subName, sub, '  '));
  }
  return rows;
}

const zoneOf = (m: MachineDoc) => m.hardware?.match(/(?:^| )availability-zone=(\S+)/)?.[1] ?? '';

function machineSection(doc: StatusDoc): Cell[][] {
  // Juju 3 shows a machine's base (ubuntu@22.04) where Juju 2.9 showed its series.
  const rows: Cell[][] = [['Machine', 'State', 'DNS', 'Inst id', 'Base', 'AZ', 'Message']];
  for (const id of Object.keys(doc.machines).sort(byNumber)) {
    const m = doc.machines[id]!;
    // Juju shows a machine whose provisioning failed as down, with the provider's error as message.
    const failed = m['machine-status'].current === 'provisioning error';
    rows.push([
      id,
      failed ? styled('down', 'red') : status(m['juju-status']),
      m['dns-name'] ?? '',
      m['instance-id'],
      m.base ? `${m.base.name}@${m.base.channel}` : m.series,
      zoneOf(m),
      message(m['machine-status'].message, m['juju-status'].life, m['blocked-by']),
    ]);
  }
  return rows;
}

function relationSection(doc: StatusDoc): Cell[][] {
  const rows: Cell[][] = [['Relation provider', 'Requirer', 'Interface', 'Type', 'Message']];
  for (const relation of [...(doc.relations ?? [])].sort((a, b) => a.id - b.id)) {
    // Keys list the requirer first, then the provider; a peer relation has one endpoint.
    const [requirer, provider] = relation.key.split(' ') as [string, string | undefined];
    const type = !provider ? 'peer' : relation.scope === 'container' ? 'subordinate' : 'regular';
    rows.push([provider ?? requirer, requirer, relation.interface ?? '', type, message(undefined, relation.life, relation['blocked-by'])]);
  }
  return rows;
}

export function renderTabular(doc: StatusDoc, options: { relations: boolean; colour: boolean }): string {
  const sections = [modelSection(doc)];
  if (Object.keys(doc.applications).length) sections.push(appSection(doc));
  const units = unitSection(doc);
  if (units.length > 1) sections.push(units);
  if (Object.keys(doc.machines).length) sections.push(machineSection(doc));
  if (options.relations && doc.relations?.length) sections.push(relationSection(doc));
  return sections.map((rows) => renderTable(rows, options.colour)).join('\n');
}

export const isEmptyModel = (doc: StatusDoc) => !Object.keys(doc.applications).length && !Object.keys(doc.machines).length;
