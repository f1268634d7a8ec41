// juju-log [-l LEVEL] [--debug] <message...>: "write arguments direct to juju's log".
// Logged under `unit.<unit>.juju-log`; in relation hooks prefixed `<endpoint>:<id>: `.
import { parseLogLevel } from '#shared/logs/log-sink.js';
import { deprecatedFormatFlag, warnDeprecatedFormat } from '../deprecated-format.js';
import { boolFlag, parseFlags, stringFlag } from '../flags.js';
import { relationLabel } from '../relation-flag.js';
import { usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const jujuLog: ToolCommand = {
  name: 'juju-log',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [
      boolFlag('debug', 'debug'),
      stringFlag('level', 'l', 'log-level'),
      deprecatedFormatFlag,
    ]);
    if (positional.length === 0) throw usageError('no message specified');
    warnDeprecatedFormat(flags, 'juju-log', io);
    let level = flags.debug === true ? 'DEBUG' : 'INFO';
    if (flags.debug !== true && typeof flags.level === 'string') {
      const parsed = parseLogLevel(flags.level);
      if (parsed) level = parsed;
      else ctx.log('WARNING', `Specified log level of "${flags.level}" is not valid`);
    }
    const relation = ctx.hookRelationId !== undefined ? ctx.relations().find((r) => r.id === ctx.hookRelationId) : undefined;
    const prefix = relation ? `${relationLabel(relation)}: ` : '';
    ctx.log(parseLogLevel(level) ?? 'INFO', `${prefix}${positional.join(' ')}`);
    return '';
  },
};
