// `drover status <selectors>` read on the server: only what the selectors can show, instead of the
// whole model for the CLI to filter (cli/status/select.ts keeps exactly what Juju shows of it).
// A selector brings its context as Juju's does: an application its units, their machines and
// subordinates; a unit its application; a subordinate its principal; a machine its units. And an
// application is read whole, with all its units and relations, because its status, version and
// blocked-by are computed from them: the selected document is the whole one, cut down, never a
// different one. What is read grows with the applications involved, not with the model.
import type { Application, Machine, Relation, Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import type { StatusSnapshot } from '../../domain/status.js';
import { getMany } from '../engine/reads.js';
import { listAllUnits } from '../engine/unit-listing.js';
import type { Store } from '../engine/store.js';
import { applicationOfUnit } from '../../domain/names.js';

/** Exact names (no wildcards): what the CLI sends when every selector is one. */
export interface StatusSelection {
  applications?: string[];
  units?: string[];
  machines?: string[];
}

type Contents = Pick<StatusSnapshot, 'applications' | 'units' | 'machines' | 'relations'>;

export async function readSelectedContents(store: Store, selection: StatusSelection): Promise<Contents> {
  // A name given twice is read once (BatchGetItem refuses a key twice).
  const distinct = (names: string[]) => [...new Set(names)];
  const selectedMachines = await getMany<Machine>(store, distinct(selection.machines ?? []).map(refs.machine));
  const seedUnits = await getMany<Unit>(
    store,
    distinct([...(selection.units ?? []), ...selectedMachines.flatMap((m) => m.principals)]).map(refs.unit),
  );
  const applications = new Map<string, Application>();
  const units = new Map<string, Unit>();
  const asked = new Set<string>();
  let wanted = distinct([...(selection.applications ?? []), ...seedUnits.map((u) => u.application)]);
  // Whole applications, until the subordinates and principals of their units bring no new one.
  while (wanted.length) {
    for (const name of wanted) asked.add(name);
    const found = await getMany<Application>(store, wanted.map(refs.application));
    for (const app of found) applications.set(app.name, app);
    const unitRefs = (await Promise.all(found.map((app) => listAllUnits(store, app)))).flat();
    const read = await getMany<Unit>(store, unitRefs);
    for (const unit of read) units.set(unit.name, unit);
    const related = read.flatMap((u) => [...u.subordinates, ...(u.principal ? [u.principal] : [])].map(applicationOfUnit));
    wanted = distinct(related).filter((name) => !asked.has(name));
  }
  const machineIds = new Set([...selectedMachines.map((m) => m.id), ...[...units.values()].flatMap((u) => (u.machine ? [u.machine] : []))]);
  const machines = await getMany<Machine>(store, [...machineIds].map(refs.machine));
  const relations = await getMany<Relation>(store, [...new Set([...applications.values()].flatMap((a) => a.relations))].map(refs.relation));
  return { applications: [...applications.values()], units: [...units.values()], machines, relations };
}
