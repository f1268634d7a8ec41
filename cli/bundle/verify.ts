// Everything wrong with a bundle, before anything is deployed: Juju's bundle verification
// (BundleData.VerifyWithCharms, bundledata.go in https://github.com/juju/charm), in its words, with
// the charms read from disk. Pure: the charms are given.
import { CHARM_NAME } from '../charmhub-ref.js';
import { parseConfigValues } from '#shared/domain/charm.js';
import { parseConstraints } from '#shared/domain/constraints.js';
import { checkCharmSize, checkConfigSize } from '#shared/domain/item-size.js';
import { parseBase } from '#shared/domain/bases.js';
import { errorMessage } from '#shared/domain/errors.js';
import { isValidApplicationName } from '#shared/domain/names.js';
import type { Bundle, BundleApplication } from './bundle-file.js';
import { bundleEndpoints, bundleRelationKey, optionText } from './compare.js';
import { parseDirective } from './placement.js';
import type { CharmOf } from './series.js';

export function verifyBundle(bundle: Bundle, charmOf: CharmOf): string[] {
  const problems: string[] = [];
  if (bundle.applications.size === 0) problems.push('at least one application must be specified');
  if (bundle.defaultBase !== undefined && !validBase(bundle.defaultBase))
    problems.push(`bundle declares an invalid base "${bundle.defaultBase}"`);
  const machineRefs = new Map([...bundle.machines.keys()].map((id) => [id, 0]));
  for (const [id, machine] of bundle.machines) {
    if (!/^(0|[1-9]\d*)$/.test(id)) problems.push(`invalid machine id "${id}" found in machines`);
    if (machine.constraints !== undefined) {
      const bad = constraintsProblem(machine.constraints);
      if (bad) problems.push(`invalid constraints "${machine.constraints}" in machine "${id}": ${bad}`);
    }
    if (machine.base !== undefined && !validBase(machine.base)) problems.push(`invalid base "${machine.base}" for machine "${id}"`);
  }
  for (const [name, app] of bundle.applications) problems.push(...verifyApplication(bundle, name, app, charmOf, machineRefs));
  problems.push(...verifyRelations(bundle, charmOf));
  for (const [id, count] of machineRefs) if (count === 0) problems.push(`machine "${id}" is not referred to by a placement directive`);
  return problems;
}

function validBase(base: string): boolean {
  try {
    parseBase(base);
    return true;
  } catch {
    return false;
  }
}

function constraintsProblem(constraints: string): string | undefined {
  try {
    parseConstraints(constraints);
    return undefined;
  } catch (e) {
    return errorMessage(e);
  }
}

function verifyApplication(
  bundle: Bundle,
  name: string,
  app: BundleApplication,
  charmOf: CharmOf,
  machineRefs: Map<string, number>,
): string[] {
  const problems: string[] = [];
  if (!isValidApplicationName(name)) problems.push(`invalid application name "${name}"`);
  if (app.charm === '') problems.push(`empty charm path in application "${name}"`);
  else if (app.charmhub && !CHARM_NAME.test(app.charmhub.name))
    problems.push(`application "${name}": charm "${app.charm}" is neither a local path ("./x") nor a Charmhub charm name`);
  else if (app.charmhub?.revision !== undefined && app.charmhub.channel === undefined)
    // As deploy's --revision, which Juju refuses without --channel.
    problems.push(`application "${name}": specifying a revision requires a channel for future upgrades`);
  if (app.base !== undefined && !validBase(app.base)) problems.push(`application "${name}" declares an invalid base "${app.base}"`);
  if (app.constraints !== undefined) {
    const bad = constraintsProblem(app.constraints);
    if (bad) problems.push(`invalid constraints "${app.constraints}" in application "${name}": ${bad}`);
  }
  const meta = charmOf(name);
  if (meta?.subordinate) {
    if (app.to.length > 0) problems.push(`application "${name}" is subordinate but specifies unit placement`);
    if (app.numUnits > 0) problems.push(`application "${name}" is subordinate but has non-zero num_units`);
  }
  if (meta) {
    const values = {};
    for (const [key, value] of Object.entries(app.options)) {
      try {
        Object.assign(values, parseConfigValues(meta, { [key]: optionText(value) }));
      } catch (e) {
        problems.push(`cannot validate application "${name}": ${errorMessage(e)}`);
      }
    }
    // The controller's bounds on what it stores, checked with its own code before anything is sent.
    for (const check of [() => checkConfigSize(values, name), () => checkCharmSize(meta)]) {
      try {
        check();
      } catch (e) {
        problems.push(`cannot deploy application "${name}": ${errorMessage(e)}`);
      }
    }
  }
  if (app.to.length > app.numUnits) problems.push(`too many units specified in unit placement for application "${name}"`);
  for (const directive of app.to) {
    const parsed = parseDirective(directive);
    if ('error' in parsed) {
      problems.push(parsed.error);
      continue;
    }
    if (parsed.container !== undefined) {
      problems.push(`placement "${directive}" of application "${name}": drover machines hold no containers; place the unit on a machine`);
      continue;
    }
    const p = parsed.placement;
    if (p.kind === 'machine') {
      if (!machineRefs.has(p.machine)) problems.push(`placement "${directive}" refers to a machine not defined in this bundle`);
      else machineRefs.set(p.machine, machineRefs.get(p.machine)! + 1);
    } else if (p.kind === 'unit' || p.kind === 'application') {
      const target = bundle.applications.get(p.application);
      if (!target) problems.push(`placement "${directive}" refers to an application not defined in this bundle`);
      else if (p.kind === 'unit' && p.index >= target.numUnits)
        problems.push(
          `placement "${directive}" specifies a unit greater than the ${target.numUnits} unit(s) started by the target application`,
        );
    }
  }
  return problems;
}

function verifyRelations(bundle: Bundle, charmOf: CharmOf): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const endpointsOf = bundleEndpoints(bundle, charmOf);
  for (const pair of bundle.relations) {
    const shown = JSON.stringify(pair);
    if (pair.length !== 2) {
      problems.push(`relation ${shown} has ${pair.length} endpoint(s), not 2`);
      continue;
    }
    const applications = pair.map((ep) => ep.split(':')[0]!);
    const missing = applications.filter((a) => !bundle.applications.has(a));
    for (const application of missing) problems.push(`relation ${shown} refers to application "${application}" not defined in this bundle`);
    if (missing.length) continue;
    if (applications[0] === applications[1]) {
      problems.push(`relation ${shown} relates an application to itself`);
      continue;
    }
    // Charms that could not be read are reported once, where they are named.
    if (applications.some((a) => !endpointsOf(a))) continue;
    try {
      const key = bundleRelationKey(pair, endpointsOf);
      if (seen.has(key)) problems.push(`relation ${shown} is defined more than once`);
      seen.add(key);
    } catch (e) {
      problems.push(`cannot relate ${pair.join(' and ')}: ${errorMessage(e)}`);
    }
  }
  return problems;
}
