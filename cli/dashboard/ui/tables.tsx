// The four tables of `drover status`: applications, units, machines, relations.
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import { RelateForm } from './relation-actions.js';
import { Badge } from './status-badge.js';
import { Table } from './table.js';

export type Select = (kind: 'application' | 'unit' | 'machine' | 'relation', name: string) => void;

export const Link = ({ onClick, children }: { onClick: () => void; children: string }) => (
  <button type="button" class="link" onClick={onClick}>
    {children}
  </button>
);

export function Applications({ doc, select }: { doc: StatusDoc; select: Select }) {
  const rows = Object.entries(doc.applications).map(([name, app]) => ({ name, app, units: Object.keys(app.units ?? {}).length }));
  return (
    <Table
      name="Applications"
      rows={rows}
      rowKey={(r) => r.name}
      columns={[
        { title: 'App', text: (r) => r.name, cell: (r) => <Link onClick={() => select('application', r.name)}>{r.name}</Link> },
        { title: 'Status', text: (r) => r.app['application-status'].current, cell: (r) => <Badge status={r.app['application-status']} /> },
        { title: 'Life', text: (r) => r.app.life ?? 'alive' },
        { title: 'Scale', text: (r) => String(r.units) },
        { title: 'Charm', text: (r) => `${r.app['charm-name']} ${r.app['charm-rev']}` },
        { title: 'Exposed', text: (r) => (r.app.exposed ? 'yes' : 'no') },
        { title: 'Message', text: (r) => r.app['application-status'].message ?? '' },
      ]}
    />
  );
}

export function Units({ doc, select }: { doc: StatusDoc; select: Select }) {
  return (
    <Table
      name="Units"
      rows={allUnits(doc)}
      rowKey={(r) => r.name}
      columns={[
        {
          title: 'Unit',
          text: (r) => r.name,
          cell: (r) => <Link onClick={() => select('unit', r.name)}>{`${r.name}${r.unit.leader ? '*' : ''}`}</Link>,
        },
        { title: 'Workload', text: (r) => r.unit['workload-status'].current, cell: (r) => <Badge status={r.unit['workload-status']} /> },
        { title: 'Agent', text: (r) => r.unit['juju-status'].current, cell: (r) => <Badge status={r.unit['juju-status']} /> },
        { title: 'Life', text: (r) => r.unit['juju-status'].life ?? 'alive' },
        { title: 'Machine', text: (r) => r.unit.machine ?? '' },
        { title: 'Ports', text: (r) => (r.unit['open-ports'] ?? []).join(',') },
        { title: 'Leader', text: (r) => (r.unit.leader ? 'yes' : '') },
        { title: 'Message', text: (r) => r.unit['juju-status'].message ?? r.unit['workload-status'].message ?? '' },
      ]}
    />
  );
}

/** `availability-zone=…` from a machine's hardware line. */
const zoneOf = (hardware: string | undefined) => /availability-zone=(\S+)/.exec(hardware ?? '')?.[1] ?? '';

export function Machines({ doc, select }: { doc: StatusDoc; select: Select }) {
  const rows = Object.entries(doc.machines).map(([id, machine]) => ({ id, machine }));
  return (
    <Table
      name="Machines"
      rows={rows}
      rowKey={(r) => r.id}
      columns={[
        { title: 'Machine', text: (r) => r.id, cell: (r) => <Link onClick={() => select('machine', r.id)}>{r.id}</Link> },
        { title: 'State', text: (r) => r.machine['juju-status'].current, cell: (r) => <Badge status={r.machine['juju-status']} /> },
        { title: 'Life', text: (r) => r.machine['juju-status'].life ?? 'alive' },
        { title: 'Instance', text: (r) => r.machine['instance-id'] },
        { title: 'AZ', text: (r) => zoneOf(r.machine.hardware) },
        { title: 'Address', text: (r) => r.machine['dns-name'] ?? '' },
        {
          title: 'Provisioning',
          text: (r) => r.machine['machine-status'].current,
          cell: (r) => <Badge status={r.machine['machine-status']} />,
        },
        { title: 'Message', text: (r) => r.machine['machine-status'].message ?? '' },
      ]}
    />
  );
}

export function Relations({ doc, select, model }: { doc: StatusDoc; select: Select; model: string | undefined }) {
  return (
    <>
      <RelateForm model={model} />
      <Table
        name="Relations"
        rows={doc.relations ?? []}
        rowKey={(r) => String(r.id)}
        columns={[
          { title: 'Relation', text: (r) => r.key, cell: (r) => <Link onClick={() => select('relation', r.key)}>{r.key}</Link> },
          { title: 'Interface', text: (r) => r.interface ?? '' },
          { title: 'Type', text: (r) => (r.key.includes(' ') ? (r.scope === 'container' ? 'subordinate' : 'regular') : 'peer') },
          { title: 'Life', text: (r) => r.life ?? 'alive' },
        ]}
      />
    </>
  );
}
