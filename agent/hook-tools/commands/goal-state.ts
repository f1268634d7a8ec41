// goal-state [--format yaml|json]: "the status of the charm's peers and related units", as
// juju/juju worker/uniter/runner/jujuc/goal-state.go: YAML by default (no smart format), the
// units of the unit's application and, per endpoint, the related applications and their units.
import { parseFlags } from '../flags.js';
import { formatOf, outputFlagsOf } from '../format.js';
import { output } from '../output.js';
import type { GoalStatus } from '../tool-context.js';
import { checkEmpty } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

const sortedMap = <T>(m: Record<string, T>): Record<string, T> =>
  Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((k) => [k, m[k]!]),
  );

// goalStateStatusContents: `status`, then `since` (omitted when empty).
const contents = (s: GoalStatus) => ({ status: s.status, ...(s.since ? { since: s.since } : {}) });
const units = (m: Record<string, GoalStatus>) => sortedMap(Object.fromEntries(Object.entries(m).map(([k, v]) => [k, contents(v)])));

export const goalState: ToolCommand = {
  name: 'goal-state',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlagsOf(['yaml', 'json']));
    const format = formatOf(flags, 'yaml');
    checkEmpty(positional);
    const state = await ctx.goalState();
    const relations = sortedMap(Object.fromEntries(Object.entries(state.relations).map(([k, v]) => [k, units(v)])));
    return output({ units: units(state.units), relations }, { ...flags, format }, io, { ordered: true });
  },
};
