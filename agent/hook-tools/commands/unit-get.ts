// unit-get private-address|public-address: "returns the local unit's private-address or
// public-address".
import { outputFlags } from '../format.js';
import { parseFlags } from '../flags.js';
import { output } from '../output.js';
import { checkEmpty, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const unitGet: ToolCommand = {
  name: 'unit-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    const [key, ...rest] = positional;
    if (key === undefined) throw usageError('no setting specified');
    if (key !== 'private-address' && key !== 'public-address') throw usageError(`unknown setting "${key}"`);
    checkEmpty(rest);
    return output(ctx.address(key === 'private-address' ? 'private' : 'public'), flags, io);
  },
};
