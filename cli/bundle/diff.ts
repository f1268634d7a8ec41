// `drover diff-bundle <bundle>`: how the model differs from a bundle, in the shape of Juju's
// diff-bundle (https://documentation.ubuntu.com/juju/3.6/reference/juju-cli/list-of-juju-cli-commands/diff-bundle/):
// per application what is missing on either side, and options, constraints, units and exposure
// that differ (`bundle:` and `model:` values); relations only one side has. An empty mapping:
// no difference. Pure.
import { configDefaults } from '#shared/domain/charm.js';
import type { Bundle } from './bundle-file.js';
import type { ModelView } from './model-view.js';
import { bundleEndpoints, bundleRelationKey, constraintsDiffer, optionText } from './compare.js';
import type { CharmOf } from './series.js';

type Pair = { bundle: unknown; model: unknown };
export interface BundleDiff {
  applications?: Record<string, { missing: 'bundle' | 'model' } | Record<string, Pair | Record<string, Pair>>>;
  relations?: { 'bundle-additions'?: string[][]; 'model-additions'?: string[][] };
}

export function diffBundle(bundle: Bundle, charmOf: CharmOf, model: ModelView): BundleDiff {
  const applications: NonNullable<BundleDiff['applications']> = {};
  for (const [name, app] of bundle.applications) {
    const have = model.applications.get(name);
    if (!have) {
      applications[name] = { missing: 'model' };
      continue;
    }
    const differences: Record<string, Pair | Record<string, Pair>> = {};
    const defaults = configDefaults(charmOf(name)!);
    const options: Record<string, Pair> = {};
    for (const [key, value] of Object.entries(app.options)) {
      const current = have.config[key] ?? defaults[key];
      if (current === undefined || optionText(current) !== optionText(value)) options[key] = { bundle: value, model: current ?? null };
    }
    if (Object.keys(options).length) differences.options = options;
    if (app.constraints !== undefined && constraintsDiffer(app.constraints, have.constraints))
      differences.constraints = { bundle: app.constraints, model: have.constraints };
    if (app.numUnits !== have.units.length && !charmOf(name)!.subordinate)
      differences.num_units = { bundle: app.numUnits, model: have.units.length };
    if (app.expose !== have.exposed) differences.expose = { bundle: app.expose, model: have.exposed };
    if (Object.keys(differences).length) applications[name] = differences;
  }
  for (const name of model.applications.keys()) if (!bundle.applications.has(name)) applications[name] = { missing: 'bundle' };

  const endpointsOf = bundleEndpoints(bundle, charmOf);
  const bundleKeys = new Map(bundle.relations.map((pair) => [bundleRelationKey(pair, endpointsOf), pair]));
  const bundleAdditions = [...bundleKeys].filter(([key]) => !model.relations.has(key)).map(([, pair]) => pair);
  const modelAdditions = [...model.relations]
    .map((key) => key.split(' '))
    .filter((eps) => eps.length === 2 && !bundleKeys.has(eps.join(' ')));
  const relations = {
    ...(bundleAdditions.length ? { 'bundle-additions': bundleAdditions } : {}),
    ...(modelAdditions.length ? { 'model-additions': modelAdditions } : {}),
  };
  return { ...(Object.keys(applications).length ? { applications } : {}), ...(Object.keys(relations).length ? { relations } : {}) };
}
