// The pane beside a view: what one application, unit, machine or relation is, read when it is
// chosen, and what can be done to it. A unit's status history (show-status-log) and its recent log
// lines (debug-log) are read from the controller; the rest is in the status document already.
import type { StatusDoc } from '#shared/domain/status-document.js';
import { allUnits } from '#shared/domain/status-document.js';
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ActionForm } from './action-form.js';
import { read } from './api.js';
import { ConfigForm, type ConfigOption } from './config-form.js';
import { RemoveRelation } from './relation-actions.js';
import { Badge } from './status-badge.js';
import { Link, type Select } from './tables.js';
import { UnitActions } from './unit-actions.js';

export interface Selection {
  kind: 'application' | 'unit' | 'machine' | 'relation';
  /** A relation's is its key (`wordpress:db mysql:server`). */
  name: string;
}

interface LogEntry {
  type: string;
  status: string;
  message?: string;
  time: string;
}

function UnitHistory({ unit, model }: { unit: string; model: string | undefined }) {
  const [history, setHistory] = useState<LogEntry[] | string>('Loading…');
  const [lines, setLines] = useState<string[] | string>('Loading…');
  useEffect(() => {
    read<{ entries: LogEntry[] }>('status-log', { entity: unit, n: '20' }, model).then(
      (r) => setHistory(r.entries),
      (e: Error) => setHistory(e.message),
    );
    read<{ lines: string[] }>('debug-log', { include: `unit-${unit.replace('/', '-')}`, limit: '50' }, model).then(
      (r) => setLines(r.lines),
      (e: Error) => setLines(e.message),
    );
  }, [unit, model]);
  return (
    <>
      <h3>Status history</h3>
      {typeof history === 'string' ? (
        <p>{history}</p>
      ) : (
        <ol class="history">
          {history.map((h) => (
            <li key={`${h.time}${h.type}`}>
              <time>{h.time}</time> {h.type} <strong>{h.status}</strong> {h.message ?? ''}
            </li>
          ))}
        </ol>
      )}
      <h3>Recent log</h3>
      {typeof lines === 'string' ? <p>{lines}</p> : <pre class="log">{lines.join('\n') || 'No lines yet.'}</pre>}
    </>
  );
}

interface Settings {
  constraints: string;
  config: Record<string, ConfigOption>;
}

/** `drover get-constraints <app>`, and `drover config <app>` as a form that changes it. */
function ApplicationSettings({ application, model }: { application: string; model: string | undefined }) {
  const [settings, setSettings] = useState<Settings | string>('Loading…');
  const [reads, setReads] = useState(0);
  useEffect(() => {
    read<Settings>('application-settings', { application }, model).then(setSettings, (e: Error) => setSettings(e.message));
  }, [application, model, reads]);
  if (typeof settings === 'string') return <p>{settings}</p>;
  return (
    <>
      <h3>Constraints</h3>
      <p class="constraints">{settings.constraints || 'none'}</p>
      <h3>Config</h3>
      <ConfigForm application={application} model={model} config={settings.config} reread={() => setReads(reads + 1)} />
    </>
  );
}

/** Names that open their own pane: click through from an application or machine to its units. */
function Links({ names, kind, select }: { names: string[]; kind: Selection['kind']; select: Select }) {
  if (!names.length) return <>none</>;
  return (
    <>
      {names.map((name, i) => (
        <Fragment key={name}>
          {i ? ', ' : ''}
          <Link onClick={() => select(kind, name)}>{name}</Link>
        </Fragment>
      ))}
    </>
  );
}

function Body({ doc, model, selection, select }: { doc: StatusDoc; model: string | undefined; selection: Selection; select: Select }) {
  if (selection.kind === 'application') {
    const app = doc.applications[selection.name];
    if (!app) return <p>{selection.name} is gone.</p>;
    return (
      <>
        <dl>
          <dt>Status</dt>
          <dd>
            <Badge status={app['application-status']} /> {app['application-status'].message ?? ''}
          </dd>
          <dt>Charm</dt>
          <dd>{app.charm}</dd>
          <dt>Life</dt>
          <dd>{app.life ?? 'alive'}</dd>
          <dt>Units</dt>
          <dd>
            <Links names={Object.keys(app.units ?? {})} kind="unit" select={select} />
          </dd>
          {app['blocked-by'] ? (
            <>
              <dt>Blocked by</dt>
              <dd>{app['blocked-by'].join('; ')}</dd>
            </>
          ) : null}
        </dl>
        <ApplicationSettings application={selection.name} model={model} />
      </>
    );
  }
  if (selection.kind === 'machine') {
    const machine = doc.machines[selection.name];
    if (!machine) return <p>Machine {selection.name} is gone.</p>;
    const units = allUnits(doc).filter((u) => u.unit.machine === selection.name);
    return (
      <dl>
        <dt>Status</dt>
        <dd>
          <Badge status={machine['juju-status']} /> {machine['machine-status'].message ?? ''}
        </dd>
        <dt>Instance</dt>
        <dd>{machine['instance-id']}</dd>
        <dt>Hardware</dt>
        <dd>{machine.hardware ?? 'unknown'}</dd>
        <dt>Units</dt>
        <dd>
          <Links names={units.map((u) => u.name)} kind="unit" select={select} />
        </dd>
      </dl>
    );
  }
  if (selection.kind === 'relation') {
    const relation = doc.relations?.find((r) => r.key === selection.name);
    if (!relation) return <p>Relation {selection.name} is gone.</p>;
    const endpoints = relation.key.split(' ');
    return (
      <>
        <dl>
          <dt>Endpoints</dt>
          <dd>{endpoints.join(' ⟷ ')}</dd>
          <dt>Interface</dt>
          <dd>{relation.interface ?? ''}</dd>
          <dt>Type</dt>
          <dd>{endpoints.length === 1 ? 'peer' : relation.scope === 'container' ? 'subordinate' : 'regular'}</dd>
          <dt>Life</dt>
          <dd>{relation.life ?? 'alive'}</dd>
          {relation['blocked-by'] ? (
            <>
              <dt>Blocked by</dt>
              <dd>{relation['blocked-by'].join('; ')}</dd>
            </>
          ) : null}
        </dl>
        <RemoveRelation id={relation.id} relationKey={relation.key} model={model} />
      </>
    );
  }
  const found = allUnits(doc).find((u) => u.name === selection.name);
  const unit = found?.unit;
  const siblings = found
    ? allUnits(doc)
        .filter((u) => u.application === found.application)
        .map((u) => u.name)
    : [];
  return (
    <>
      {unit ? (
        <dl>
          <dt>Workload</dt>
          <dd>
            <Badge status={unit['workload-status']} /> {unit['workload-status'].message ?? ''}
          </dd>
          <dt>Agent</dt>
          <dd>
            <Badge status={unit['juju-status']} /> {unit['juju-status'].message ?? ''}
          </dd>
          <dt>Machine</dt>
          <dd>{unit.machine ?? ''}</dd>
        </dl>
      ) : (
        <p>{selection.name} is gone.</p>
      )}
      {unit && found ? (
        <>
          <UnitActions
            unit={selection.name}
            inError={unit['juju-status'].current === 'error' || unit['workload-status'].current === 'error'}
            model={model}
          />
          <h3>Run an action</h3>
          <ActionForm key={selection.name} application={found.application} units={siblings} chosen={selection.name} model={model} />
        </>
      ) : null}
      <UnitHistory unit={selection.name} model={model} />
    </>
  );
}

/** `model`: the one the page shows (undefined: the one `drover dashboard` was started on). */
export function Detail({
  doc,
  select,
  model,
  selection,
  close,
}: {
  doc: StatusDoc;
  /** Opens another entity's pane in place of this one. */
  select: Select;
  model: string | undefined;
  selection: Selection;
  close: () => void;
}) {
  return (
    <aside class="detail" aria-label={`${selection.kind} ${selection.name}`}>
      <header>
        <h2>
          {selection.kind} {selection.name}
        </h2>
        <button type="button" onClick={close} aria-label="Close details">
          ✕
        </button>
      </header>
      <Body doc={doc} model={model} selection={selection} select={select} />
    </aside>
  );
}
