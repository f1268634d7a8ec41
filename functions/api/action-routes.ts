// The reads behind `drover actions` and `drover exec`'s targets.
import type { Unit } from '#shared/domain/entities.js';
import { invalidArgument, notFound } from '#shared/domain/errors.js';
import { getApplication, getMany } from '#shared/state/engine/reads.js';
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

/**
 * The units `drover exec` runs on: those named, and every unit of the applications named, in
 * order, once each. Machines are refused: drover's agents run commands in a unit's hook context
 * only (there is no machine-level juju-exec).
 */
export async function execTargets(
  store: Store,
  targets: { units?: string[]; applications?: string[]; machines?: string[] },
): Promise<string[]> {
  if (targets.machines?.length) {
    throw invalidArgument(
      'drover exec runs commands in the hook context of units; --machine is not supported, use --unit or --application',
    );
  }
  const units = [...(targets.units ?? [])];
  for (const name of targets.applications ?? []) {
    const application = await getApplication(store, name);
    if (!application) throw notFound(`application "${name}" not found`);
    const refs = await listAllUnits(store, application);
    const found = await getMany<Unit>(store, refs);
    units.push(...found.filter((u) => u.life !== 'dead').map((u) => u.name));
  }
  if (units.length === 0) throw invalidArgument('you must specify a target, either through --machine, --application or --unit');
  return [...new Set(units)];
}
