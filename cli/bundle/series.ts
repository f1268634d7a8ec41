// The series a bundle application deploys on: its own base or series, else the bundle's default,
// else the charm's own choice (shared/domain/charm.ts, chooseSeries).
import { chooseSeries, type CharmMeta } from '#shared/domain/charm.js';
import { baseToSeries, parseBase } from '#shared/domain/bases.js';
import type { Bundle, BundleApplication } from './bundle-file.js';

/** What a bundle application's charm turned out to be: its metadata, or undefined if it could not be read. */
export type CharmOf = (application: string) => CharmMeta | undefined;

export function applicationSeries(bundle: Bundle, app: BundleApplication, meta: CharmMeta): string {
  const base = app.base ?? (app.series === undefined ? bundle.defaultBase : undefined);
  const requested = base !== undefined ? baseToSeries(parseBase(base)) : (app.series ?? bundle.series);
  return chooseSeries(meta, requested);
}
