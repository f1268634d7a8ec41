// Charm URLs. drover stores a local charm's as Juju 2.9 spelled them,
// `local:<series>/<name>-<revision>`, and a Charmhub charm's as Juju 3.6 does,
// `ch:<architecture>/<series>/<name>-<revision>` (units compare them to know when to upgrade);
// users see them as Juju 3.6 writes them, without the series: `local:<name>-<revision>`,
// `ch:amd64/<name>-<revision>` (displayCharmUrl). Every upload of a local charm to an application
// takes the next revision (deploy takes 0); a Charmhub charm keeps the store's revision.
import { invalidArgument } from './errors.js';

export interface CharmUrl {
  /** `local` (uploaded) or `ch` (Charmhub). Absent: local. */
  schema?: 'local' | 'ch';
  /** A Charmhub charm's architecture. */
  architecture?: string;
  series: string;
  name: string;
  revision: number;
}

export function formatCharmUrl(url: CharmUrl): string {
  if (url.schema === 'ch') return `ch:${url.architecture ?? 'amd64'}/${url.series}/${url.name}-${url.revision}`;
  return `local:${url.series}/${url.name}-${url.revision}`;
}

export function parseCharmUrl(url: string): CharmUrl {
  const local = /^local:([a-z][a-z0-9]*)\/([a-z][a-z0-9-]*)-(\d+)$/.exec(url);
  if (local) return { schema: 'local', series: local[1]!, name: local[2]!, revision: Number(local[3]) };
  const ch = /^ch:([a-z0-9]+)\/([a-z][a-z0-9]*)\/([a-z][a-z0-9-]*)-(\d+)$/.exec(url);
  if (ch) return { schema: 'ch', architecture: ch[1]!, series: ch[2]!, name: ch[3]!, revision: Number(ch[4]) };
  throw invalidArgument(`invalid charm URL "${url}"; expected local:<series>/<name>-<revision> or ch:<arch>/<series>/<name>-<revision>`);
}

/**
 * A stored charm URL as Juju 3.6 shows it (status `upgrading-from`): Juju 3 charm URLs
 * carry no series (`local:testdb-0`, `ch:amd64/postgresql-345`;
 * https://github.com/juju/juju/blob/3.6/cmd/juju/status/formatter.go). The one place a
 * charm URL is turned into what a user reads.
 */
export function displayCharmUrl(url: string): string {
  // A URL that is not drover's own form (one an agent reported) is shown as it is, never refused:
  // reading status must not fail on one odd value.
  return url
    .replace(/^local:[a-z][a-z0-9]*\/(?=[a-z][a-z0-9-]*-\d+$)/, 'local:')
    .replace(/^(ch:[a-z0-9]+\/)[a-z][a-z0-9]*\/(?=[a-z][a-z0-9-]*-\d+$)/, '$1');
}
