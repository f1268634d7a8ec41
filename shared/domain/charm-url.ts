// Charm URLs of local charms. drover stores them as Juju 2.9 spelled them,
// `local:<series>/<name>-<revision>` (units compare them to know when to upgrade); users see them
// as Juju 3.6 writes them, without the series: `local:<name>-<revision>` (displayCharmUrl). Every
// upload of a local charm to an application takes the next revision (deploy takes 0).
import { invalidArgument } from './errors.js';

export interface CharmUrl {
  series: string;
  name: string;
  revision: number;
}

export function formatCharmUrl(url: CharmUrl): string {
  return `local:${url.series}/${url.name}-${url.revision}`;
}

export function parseCharmUrl(url: string): CharmUrl {
  const match = /^local:([a-z][a-z0-9]*)\/([a-z][a-z0-9-]*)-(\d+)$/.exec(url);
  if (!match) throw invalidArgument(`invalid charm URL "${url}"; expected local:<series>/<name>-<revision>`);
  return { series: match[1]!, name: match[2]!, revision: Number(match[3]) };
}

/**
 * A stored charm URL as Juju 3.6 shows it (status `charm`, `upgrading-from`): Juju 3 charm URLs
 * carry no series (`local:testdb-0`; https://github.com/juju/juju/blob/3.6/cmd/juju/status/formatter.go). The one place a
 * charm URL is turned into what a user reads.
 */
export function displayCharmUrl(url: string): string {
  // A URL that is not drover's own form (one an agent reported) is shown as it is, never refused:
  // reading status must not fail on one odd value.
  return url.replace(/^local:[a-z][a-z0-9]*\/(?=[a-z][a-z0-9-]*-\d+$)/, 'local:');
}
