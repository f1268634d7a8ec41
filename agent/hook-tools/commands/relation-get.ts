// relation-get [<key>|-] [<unit>] [-r <id>]: "get the settings of some related unit". In relation
// hooks the relation and (except in -broken) the remote unit default to the hook's own. The
// first read of a unit's settings is remembered for the rest of the hook (the sandbox).
import { isValidUnitName } from '../../../shared/domain/names.js';
import { boolFlag, parseFlags, stringFlag } from '../flags.js';
import { formatOf, outputFlags } from '../format.js';
import { output } from '../output.js';
import { relationFromFlag } from '../relation-flag.js';
import { checkEmpty, runtimeError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const relationGet: ToolCommand = {
  name: 'relation-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, stringFlag('relation', 'r', 'relation'), boolFlag('app', 'app')]);
    formatOf(flags);
    const relation = relationFromFlag(ctx, flags.relation);
    const rest = [...positional];
    let key = rest.shift() ?? '';
    if (key === '-') key = '';
    const unit = rest.shift() ?? ctx.remoteUnit;
    checkEmpty(rest);
    // drover keeps no application data bags (a Juju 2.7+ leadership feature).
    if (flags.app === true) throw runtimeError('cannot read application settings: drover keeps no application data bags');
    if (unit === undefined) throw usageError('no unit or application specified');
    if (!isValidUnitName(unit)) throw runtimeError(`"${unit}" is not a valid unit name`);
    const settings = await ctx.readSettings(relation.id, unit);
    return output(key === '' ? settings : Object.hasOwn(settings, key) ? settings[key] : null, flags, io);
  },
};
