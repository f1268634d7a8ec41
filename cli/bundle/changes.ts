// What deploying a verified bundle changes in a model, in order, as Juju's bundle changes do
// (https://github.com/juju/juju/tree/3.6/core/bundle/changes): deploy what is missing, add the
// machines and units the model lacks, set options and constraints that differ, expose, relate.
// Nothing is ever removed, so deploying the same bundle twice changes nothing the second time.
// Pure: the model is given as the CLI read it (apply.ts).
import { configDefaults, type CharmMeta } from '#shared/domain/charm.js';
import { baseToSeries, parseBase } from '#shared/domain/bases.js';
import type { Bundle, BundleApplication } from './bundle-file.js';
import { unitPlacements, type Placement } from './placement.js';
import type { ModelView } from './model-view.js';
import { bundleEndpoints, bundleRelationKey, constraintsDiffer, optionText } from './compare.js';
import { applicationSeries, type CharmOf } from './series.js';

/** Where a unit goes: an existing model machine, a machine of the bundle, a unit's machine, or a new one. */
export type Target =
  | { kind: 'new' }
  | { kind: 'model-machine'; machine: string }
  | { kind: 'bundle-machine'; machine: string }
  | { kind: 'unit'; application: string; index: number };

export type Change =
  | {
      kind: 'deploy';
      application: string;
      /** A local charm's path, or a Charmhub charm as the bundle names it. */
      charmPath?: string;
      charmhub?: { name: string; channel?: string; revision?: number };
      charmName: string;
      series: string;
      options: Record<string, string>;
      constraints?: string;
      /**
       * Units deployed with it, each on a new machine: an application whose every unit goes to a
       * new machine gets them as `deploy -n` would, in the one request (and no add-unit).
       */
      units: number;
    }
  | { kind: 'add-machine'; machine: string; series: string; constraints?: string }
  | { kind: 'add-unit'; application: string; index: number; target: Target }
  | { kind: 'set-options'; application: string; options: Record<string, string> }
  | { kind: 'set-constraints'; application: string; constraints: string }
  | { kind: 'expose'; application: string }
  | { kind: 'relate'; endpoints: [string, string] };

/** Problems that only the model reveals (an application of another charm), or the changes. */
export function bundleChanges(bundle: Bundle, charmOf: CharmOf, model: ModelView): { problems: string[]; changes: Change[] } {
  const problems: string[] = [];
  const changes: Change[] = [];
  const charm = (name: string) => charmOf(name)!;
  for (const name of bundle.applications.keys()) {
    const existing = model.applications.get(name);
    if (existing && existing.charmName !== charm(name).name)
      problems.push(
        `application "${name}" exists with charm "${existing.charmName}", not "${charm(name).name}"; remove it, or name another application`,
      );
  }
  if (problems.length) return { problems, changes: [] };

  for (const [name, app] of bundle.applications) {
    const existing = model.applications.get(name);
    const options = Object.fromEntries(Object.entries(app.options).map(([k, v]) => [k, optionText(v)]));
    if (!existing) {
      changes.push({
        kind: 'deploy',
        application: name,
        ...(app.charmPath !== undefined ? { charmPath: app.charmPath } : {}),
        ...(app.charmhub ? { charmhub: app.charmhub } : {}),
        charmName: charm(name).name,
        series: applicationSeries(bundle, app, charm(name)),
        options,
        ...(app.constraints !== undefined ? { constraints: app.constraints } : {}),
        units: allOnNewMachines(app) ? app.numUnits : 0,
      });
      continue;
    }
    const changed = changedOptions(charm(name), existing.config, options);
    if (Object.keys(changed).length) changes.push({ kind: 'set-options', application: name, options: changed });
    if (app.constraints !== undefined && constraintsDiffer(app.constraints, existing.constraints))
      changes.push({ kind: 'set-constraints', application: name, constraints: app.constraints });
  }

  changes.push(...unitChanges(bundle, charmOf, model));

  for (const [name, app] of bundle.applications)
    if (app.expose && !model.applications.get(name)?.exposed) changes.push({ kind: 'expose', application: name });

  const endpointsOf = bundleEndpoints(bundle, charmOf);
  for (const pair of bundle.relations) {
    if (!model.relations.has(bundleRelationKey(pair, endpointsOf))) changes.push({ kind: 'relate', endpoints: [pair[0]!, pair[1]!] });
  }
  return { problems, changes };
}

/** Whether every unit of an application goes to a new machine (no `to`, or only `new`). */
const allOnNewMachines = (app: BundleApplication) => unitPlacements(app.to, app.numUnits).every((p) => p.kind === 'new');

/** The options whose value in the bundle is not what the application has (its default counts as had). */
function changedOptions(meta: CharmMeta, current: Record<string, unknown>, wanted: Record<string, string>): Record<string, string> {
  const defaults = configDefaults(meta);
  const have = (key: string) => (current[key] !== undefined ? current[key] : defaults[key]);
  return Object.fromEntries(Object.entries(wanted).filter(([key, value]) => have(key) === undefined || optionText(have(key)) !== value));
}

/**
 * The units each application lacks, placed by its `to`. A unit the model has keeps its place, and
 * tells where the bundle's machine it was placed on is in the model, so a unit added later for
 * that machine joins it. Machines of the bundle no existing unit stands on are added, with the
 * series of the first application placed there unless the bundle gives one.
 */
function unitChanges(bundle: Bundle, charmOf: CharmOf, model: ModelView): Change[] {
  const changes: Change[] = [];
  const machineInModel = new Map<string, string>();
  const placements = new Map<string, Placement[]>();
  for (const [name, app] of bundle.applications) {
    const placed = unitPlacements(app.to, app.numUnits);
    placements.set(name, placed);
    const units = model.applications.get(name)?.units ?? [];
    placed.forEach((p, i) => {
      const machine = units[i]?.machine;
      if (p.kind === 'machine' && machine !== undefined && !machineInModel.has(p.machine)) machineInModel.set(p.machine, machine);
    });
  }
  const added = new Set<string>();
  const addMachine = (id: string, app: BundleApplication, appName: string) => {
    if (machineInModel.has(id) || added.has(id)) return;
    added.add(id);
    const spec = bundle.machines.get(id) ?? {};
    const series =
      spec.base !== undefined ? baseToSeries(parseBase(spec.base)) : (spec.series ?? applicationSeries(bundle, app, charmOf(appName)!));
    changes.push({
      kind: 'add-machine',
      machine: id,
      series,
      ...(spec.constraints !== undefined ? { constraints: spec.constraints } : {}),
    });
  };
  for (const name of placementOrder(bundle, placements)) {
    const app = bundle.applications.get(name)!;
    const existing = model.applications.get(name);
    // A new application whose units all go to new machines is deployed with them (above).
    if (!existing && allOnNewMachines(app)) continue;
    const have = existing?.units.length ?? 0;
    placements.get(name)!.forEach((p, index) => {
      if (index < have) return;
      let target: Target;
      if (p.kind === 'machine') {
        const inModel = machineInModel.get(p.machine);
        if (inModel === undefined) addMachine(p.machine, app, name);
        target = inModel !== undefined ? { kind: 'model-machine', machine: inModel } : { kind: 'bundle-machine', machine: p.machine };
      } else target = p;
      changes.push({ kind: 'add-unit', application: name, index, target });
    });
  }
  return changes;
}

/** Applications ordered so that one placed beside another's units comes after it. */
function placementOrder(bundle: Bundle, placements: Map<string, Placement[]>): string[] {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (order.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const p of placements.get(name) ?? []) if (p.kind === 'unit' && p.application !== name) visit(p.application);
    order.push(name);
  };
  for (const name of bundle.applications.keys()) visit(name);
  return order;
}
