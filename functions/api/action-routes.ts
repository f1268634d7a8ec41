// The reads behind `drover actions` and `drover exec`'s targets.
import type { Unit } from '#shared/domain/entities.js';
import { invalidArgument, notFound } from '#shared/domain/errors.js';
import { collections } from '#shared/state/engine/keys.js';
import { getApplication, getMachine, getMany, listAll } from '#shared/state/engine/reads.js';
import { listAllUnits } from '#shared/state/engine/unit-listing.js';
import { readLeaders } from '#shared/state/queries/leadership.js';
import type { Store } from '#shared/state/engine/store.js';

/** `mysql/leader` → the unit holding mysql's leadership, as Juju resolves it before queueing. */
export async function resolveLeaders(store: Store, units: string[]): Promise<string[]> {
  const applications = units.filter((u) => u.endsWith('/leader')).map((u) => u.slice(0, -'/leader'.length));
  if (applications.length === 0) return units;
  const leaders = await readLeaders(store, applications);
  return units.map((u) => {
    if (!u.endsWith('/leader')) return u;
    const application = u.slice(0, -'/leader'.length);
    const leader = leaders[application];
    if (!leader) throw notFound(`could not determine leader for "${application}"`);
    return leader;
  });
}

export async function applicationActions(store: Store, name: string) {
  const application = await getApplication(store, name);
  if (!application) throw notFound(`application "${name}" not found`);
  return { application: name, actions: application.charm.actions ?? {} };
}

/** What `drover exec` runs on: units, and the machine a unit was picked for (`--machine`, `--all`). */
export interface ExecTargets {
  units: string[];
  /** unit → the machine it stands for, so the CLI keys its result by the machine as Juju does. */
  machineOf: Record<string, string>;
}

/** A machine's command runs through its first principal unit's agent: drover's machine agent runs no command of its own. */
async function unitForMachine(store: Store, id: string): Promise<string> {
  const machine = await getMachine(store, id);
  if (!machine || machine.life === 'dead') throw notFound(`machine ${id} not found`);
  const [unit] = machine.principals;
  if (unit === undefined) {
    throw invalidArgument(`machine ${id} has no units: drover runs a machine's commands through the agent of a unit on it`);
  }
  return unit;
}

async function allMachineIds(store: Store): Promise<string[]> {
  const ids: string[] = [];
  for (const shard of collections.machineShards(store.model)) {
    for (const ref of await listAll(store, shard)) if (ref.kind === 'machine') ids.push(ref.id);
  }
  return ids.sort((a, b) => Number(a) - Number(b));
}

/**
 * The units `drover exec` runs on: those named (`app/leader` resolved as Juju does), every unit
 * of the applications named, and one unit for each machine named (or, with `all`, each machine
 * that hosts a unit), in order, once each.
 */
export async function execTargets(
  store: Store,
  targets: { units?: string[]; applications?: string[]; machines?: string[]; all?: boolean },
): Promise<ExecTargets> {
  const units = await resolveLeaders(store, [...(targets.units ?? [])]);
  for (const name of targets.applications ?? []) {
    const application = await getApplication(store, name);
    if (!application) throw notFound(`application "${name}" not found`);
    const refs = await listAllUnits(store, application);
    const found = await getMany<Unit>(store, refs);
    units.push(...found.filter((u) => u.life !== 'dead').map((u) => u.name));
  }
  const machineOf: Record<string, string> = {};
  if (targets.all) {
    for (const id of await allMachineIds(store)) {
      const machine = await getMachine(store, id);
      const unit = machine?.principals[0];
      if (unit === undefined || machine?.life === 'dead') continue;
      machineOf[unit] = id;
      units.push(unit);
    }
  }
  for (const id of targets.machines ?? []) {
    const unit = await unitForMachine(store, id);
    machineOf[unit] = id;
    units.push(unit);
  }
  if (units.length === 0) throw invalidArgument('you must specify a target, either through --all, --machine, --application or --unit');
  return { units: [...new Set(units)], machineOf };
}
