// config-get [<key>] [-a|--all]: "get current service configuration values". No key: the
// options with a value or default; --all also those without, as null; a key: its value (an
// unknown key prints nothing).
import { boolFlag, parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const configGet: ToolCommand = {
  name: 'config-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, boolFlag('all', 'a', 'all')]);
    const [key, ...rest] = positional;
    if (key !== undefined && key !== '' && flags.all === true) throw usageError(`cannot use argument --all together with key "${key}"`);
    checkEmpty(rest);
    const { values, options } = ctx.config();
    if (key !== undefined && key !== '') return output(Object.hasOwn(values, key) ? values[key] : null, flags, io);
    const settings: Record<string, unknown> = { ...values };
    if (flags.all === true) for (const option of options) if (!Object.hasOwn(settings, option)) settings[option] = null;
    return output(settings, flags, io);
  },
};
