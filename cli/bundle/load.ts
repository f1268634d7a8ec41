// A bundle and its charms, read from disk or fetched from Charmhub, and verified, or refused whole
// with every problem listed: what deploy and diff-bundle start from.
import { readCharmDir, type CharmDir } from '../charm-dir.js';
import { CliError } from '../errors.js';
import { CHARM_NAME } from '../charmhub-ref.js';
import type { CharmMeta } from '#shared/domain/charm.js';
import { readBundle, type ReadBundle } from './bundle-file.js';
import type { CharmOf } from './series.js';
import type { FetchCharmhubCharm } from './charmhub-charms.js';
import { verifyBundle } from './verify.js';
import { errorMessage } from '#shared/domain/errors.js';

export interface LoadedBundle {
  read: ReadBundle;
  charms: Map<string, CharmDir>;
  charmOf: CharmOf;
}

/** `fetchCharmhub`: how a Charmhub charm is fetched (./charmhub-charms.ts), once the bundle itself reads well. */
export async function loadBundle(path: string, verb: 'deploy' | 'diff', fetchCharmhub: FetchCharmhubCharm): Promise<LoadedBundle> {
  const read = await readBundle(path);
  const charms = new Map<string, CharmDir>();
  const problems = [...read.problems];
  for (const [name, app] of read.bundle.applications) {
    if (app.charmPath !== undefined) {
      try {
        charms.set(name, await readCharmDir(app.charmPath, `application "${name}" takes`));
      } catch (e) {
        problems.push(`charm path in application "${name}": ${errorMessage(e)}`);
      }
    } else if (app.charmhub && CHARM_NAME.test(app.charmhub.name) && read.problems.length === 0) {
      try {
        charms.set(name, await fetchCharmhub(read.bundle, name, app));
      } catch (e) {
        problems.push(`charm "${app.charmhub.name}" in application "${name}": ${errorMessage(e)}`);
      }
    }
  }
  const charmOf = (name: string): CharmMeta | undefined => charms.get(name)?.meta;
  problems.push(...verifyBundle(read.bundle, charmOf));
  if (problems.length) throw bundleRefused(verb, read.path, problems);
  return { read, charms, charmOf };
}

export function bundleRefused(verb: 'deploy' | 'diff', path: string, problems: string[]): CliError {
  const outcome = verb === 'deploy' ? '; nothing was deployed' : '';
  return new CliError(
    `cannot ${verb} bundle "${path}": ${problems.length} problem(s)${outcome}:\n${problems.map((p) => `- ${p}`).join('\n')}`,
  );
}
