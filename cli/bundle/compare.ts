// How a bundle's values are compared with the model's, one place for deploy (changes.ts), diff
// (diff.ts) and verification (verify.ts): option values as text, only the constraints a bundle
// names, and a bundle relation's key as the controller would infer it.
import { charmEndpoints } from '#shared/domain/charm.js';
import { parseConstraints } from '#shared/domain/constraints.js';
import { inferRelation, relationKey, type AppEndpoints } from '#shared/domain/relation-endpoints.js';
import type { Bundle } from './bundle-file.js';
import { applicationSeries, type CharmOf } from './series.js';

/** An option value as the API takes it: a string, as `drover config key=value` sends it. */
export const optionText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Whether a constraint the bundle names has another value on the application. Only those it
 * names: the controller fills in others (an architecture), which the bundle leaves as they are.
 */
export function constraintsDiffer(wanted: string, have: string): boolean {
  const [w, h] = [parseConstraints(wanted), parseConstraints(have)] as Record<string, unknown>[];
  return Object.keys(w!).some((key) => JSON.stringify(w![key]) !== JSON.stringify(h![key]));
}

/** The endpoints of a bundle application, as relation inference wants them; undefined if it cannot be read. */
export function bundleEndpoints(bundle: Bundle, charmOf: CharmOf): (application: string) => AppEndpoints | undefined {
  return (application) => {
    const app = bundle.applications.get(application);
    const meta = charmOf(application);
    if (!app || !meta) return undefined;
    try {
      return { application, series: applicationSeries(bundle, app, meta), subordinate: meta.subordinate, endpoints: charmEndpoints(meta) };
    } catch {
      return undefined; // an unknown base or series: reported where the application is verified
    }
  };
}

/** The key of the relation a bundle's endpoint pair names (`client:db database:db`). */
export const bundleRelationKey = (pair: string[], endpoints: (application: string) => AppEndpoints | undefined) =>
  relationKey(inferRelation(pair, endpoints));
