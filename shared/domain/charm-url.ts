// Charm URLs of local charms, as Juju 2.9 spells them: `local:<series>/<name>-<revision>`. Every
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
