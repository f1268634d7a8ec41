// relation-list [-r <id>] [--app]: "list all units of a related service" that this unit knows
// in the relation (in a -departed hook, without the departing one), sorted as strings.
import { boolFlag, parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { relationFlag, relationFromFlag } from '../relation-flag.js';
import { checkEmpty } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const relationList: ToolCommand = {
  name: 'relation-list',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, relationFlag(ctx), boolFlag('app', 'app')]);
    const relation = relationFromFlag(ctx, flags.relation);
    checkEmpty(positional);
    if (flags.app === true) return output(relation.remoteApplication, flags, io);
    return output([...ctx.relationUnits(relation.id)].sort(), flags, io);
  },
};
