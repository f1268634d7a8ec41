// `drover status <selector...>`: keep what the selectors name, with its context, as Juju does —
// an application brings its units and their machines; a unit its application, machine and
// subordinates (a subordinate also its principal); a machine its units and their applications.
// Selectors may use `*` as a wildcard (`mysql/*`, `word*`).
import { applicationOfUnit, isValidMachineId, isValidUnitName } from '#shared/domain/names.js';
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';

/**
 * The status request for selectors: exact names are read on the server, only what they can show
 * (shared/state/queries/status-selection.ts); a wildcard needs every name, so the whole model.
 * Either way selectStatus then keeps what Juju shows.
 */
export function statusQuery(selectors: string[]): { application?: string[]; unit?: string[]; machine?: string[] } {
  if (!selectors.length || selectors.some((s) => s.includes('*'))) return {};
  const machine = selectors.filter(isValidMachineId);
  const unit = selectors.filter(isValidUnitName);
  const application = selectors.filter((s) => !isValidMachineId(s) && !isValidUnitName(s));
  return { ...(application.length ? { application } : {}), ...(unit.length ? { unit } : {}), ...(machine.length ? { machine } : {}) };
}

const globRe = (glob: string) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);

export function selectStatus(doc: StatusDoc, selectors: string[]): StatusDoc {
  if (!selectors.length) return doc;
  const patterns = selectors.map(globRe);
  const matches = (name: string) => patterns.some((p) => p.test(name));
  const units = allUnits(doc);
  const apps = new Set<string>();
  const unitNames = new Set<string>();
  const machines = new Set<string>();
  const machineOf = (unit: (typeof units)[number]) => unit.unit.machine ?? units.find((u) => u.name === unit.principal)?.unit.machine;

  const addUnit = (unit: (typeof units)[number]) => {
    unitNames.add(unit.name);
    apps.add(unit.application);
    const machine = machineOf(unit);
    if (machine !== undefined) machines.add(machine);
    if (unit.principal) {
      unitNames.add(unit.principal);
      apps.add(applicationOfUnit(unit.principal));
    }
    // A principal shows with its subordinates.
    for (const sub of units.filter((u) => u.principal === unit.name)) {
      unitNames.add(sub.name);
      apps.add(sub.application);
    }
  };

  for (const name of Object.keys(doc.applications)) if (matches(name)) apps.add(name);
  for (const unit of units) if (matches(unit.name) || (apps.has(unit.application) && matches(unit.application))) addUnit(unit);
  for (const id of Object.keys(doc.machines)) {
    if (!matches(id)) continue;
    machines.add(id);
    for (const unit of units) if (machineOf(unit) === id) addUnit(unit);
  }

  const applications: StatusDoc['applications'] = {};
  for (const [name, app] of Object.entries(doc.applications)) {
    if (!apps.has(name)) continue;
    const kept = Object.entries(app.units ?? {})
      .filter(([unit]) => unitNames.has(unit))
      .map(([unit, u]) => {
        const subordinates = Object.entries(u.subordinates ?? {}).filter(([sub]) => unitNames.has(sub));
        const { subordinates: _all, ...rest } = u;
        return [unit, subordinates.length ? { ...rest, subordinates: Object.fromEntries(subordinates) } : rest] as const;
      });
    const { units: _units, ...rest } = app;
    applications[name] = kept.length ? { ...rest, units: Object.fromEntries(kept) } : rest;
  }
  const relationApps = (key: string) => key.split(' ').map((ep) => ep.split(':')[0]!);
  return {
    ...doc,
    machines: Object.fromEntries(Object.entries(doc.machines).filter(([id]) => machines.has(id))),
    applications,
    ...(doc.relations ? { relations: doc.relations.filter((r) => relationApps(r.key).some((a) => apps.has(a))) } : {}),
  };
}
