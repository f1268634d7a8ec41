// `--base ubuntu@22.04` beside `--series jammy`, as Juju 3's deploy and add-machine take them:
// never both (Juju's Init refuses, a usage error), and a malformed or unknown base is refused
// before anything is sent. The API gets the base as given and resolves it the same way.
import { requestedSeries } from '#shared/domain/bases.js';
import { isDroverError } from '#shared/domain/errors.js';
import { CliError, UsageError } from './errors.js';

export function seriesOrBaseFlags(opts: { series?: string; base?: string }): { series?: string; base?: string } {
  if (opts.series && opts.base) throw new UsageError('--series and --base cannot be specified together');
  try {
    requestedSeries(opts);
  } catch (e) {
    if (isDroverError(e)) throw new CliError(e.message);
    throw e;
  }
  return { ...(opts.series ? { series: opts.series } : {}), ...(opts.base ? { base: opts.base } : {}) };
}
