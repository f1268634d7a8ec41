// Whether `deploy <charm>` names a charm on Charmhub or a local one, as Juju 3.6's deployer
// decides (https://github.com/juju/juju/blob/3.6/cmd/juju/application/deployer/deployer.go): an
// existing path, or one written as a path (`./x`, `/x`, `x.charm`), is local; `ch:<name>` and a
// bare charm name are Charmhub's. And the lines Juju prints for a charm from Charmhub.
import { stat } from 'node:fs/promises';
import { CliError } from './errors.js';

/** A charm's name as Juju's charm URLs spell it. */
export const CHARM_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]*[a-z][a-z0-9]*)*$/;

/** The Charmhub charm's name, or undefined for a local charm or bundle. */
export async function charmhubName(ref: string): Promise<string | undefined> {
  if (ref.startsWith('ch:')) {
    const name = ref.slice(3);
    if (!CHARM_NAME.test(name)) throw new CliError(`cannot parse URL "${ref}": name "${name}" not valid`);
    return name;
  }
  if (ref.startsWith('cs:')) throw new CliError(`"${ref}": the charm store is gone; deploy from Charmhub by name instead`);
  if (!CHARM_NAME.test(ref)) return undefined;
  const exists = await stat(ref).then(
    () => true,
    () => false,
  );
  return exists ? undefined : ref;
}

/** What the controller answers of a charm it fetched from Charmhub. */
export interface CharmhubSummary {
  name: string;
  revision: number;
  channel: string;
  base?: string;
}

/** Juju 3.6's `--revision` rule (deployer's validateCharmFlags). */
export function checkRevisionFlags(opts: { revision?: number; channel?: string }): void {
  if (opts.revision !== undefined && opts.channel === undefined)
    throw new CliError('specifying a revision requires a channel for future upgrades. Please use --channel');
}

export const locatedLine = (s: CharmhubSummary) => `Located charm "${s.name}" in charm-hub, revision ${s.revision}\n`;

export const deployingLine = (application: string, s: CharmhubSummary) =>
  `Deploying "${application}" from charm-hub charm "${s.name}", revision ${s.revision} in channel ${s.channel} on ${s.base ? `${s.base}/stable` : 'an unknown base'}\n`;

export const refreshedLine = (s: CharmhubSummary) =>
  `Added charm-hub charm "${s.name}", revision ${s.revision} in channel ${s.channel}, to the model\n`;
