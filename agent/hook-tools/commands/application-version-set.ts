// application-version-set <new-version>: "tells Juju which version of the application software is
// running ... displayed in juju status output for the application", as juju/juju
// worker/uniter/runner/jujuc/application-version-set.go. Juju records it on the unit (its
// workload version) at once, not with the hook's commit, and shows the application's from its units.
import { parseFlags } from '../flags.js';
import { checkEmpty, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const applicationVersionSet: ToolCommand = {
  name: 'application-version-set',
  async run(ctx, args) {
    const { positional } = parseFlags(args, []);
    const [version, ...rest] = positional;
    if (version === undefined) throw usageError('no version specified');
    checkEmpty(rest);
    await ctx.setWorkloadVersion(version);
    return '';
  },
};
