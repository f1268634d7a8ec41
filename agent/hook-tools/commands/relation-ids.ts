// relation-ids [<name>]: "list all relations using a given charm relation", as `name:id`, sorted.
import { parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { relationLabel } from '../relation-flag.js';
import { checkEmpty, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const relationIds: ToolCommand = {
  name: 'relation-ids',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    const current = ctx.hookRelationId !== undefined ? ctx.relations().find((r) => r.id === ctx.hookRelationId) : undefined;
    const [name = current?.endpoint, ...rest] = positional;
    if (name === undefined) throw usageError('no endpoint name specified');
    checkEmpty(rest);
    const ids = ctx
      .relations()
      .filter((r) => r.endpoint === name)
      .map(relationLabel)
      .sort();
    return output(ids, flags, io);
  },
};
