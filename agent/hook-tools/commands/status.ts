// status-set <maintenance|blocked|waiting|active> [message] and status-get [--include-data]:
// the workload status, "as Juju shows them" (reference §4.4, §4.7). status-set applies at once.
import { boolFlag, parseFlags } from '../flags.js';
import { formatOf, outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty, runtimeError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

const SETTABLE = ['maintenance', 'blocked', 'waiting', 'active'];

export const statusSet: ToolCommand = {
  name: 'status-set',
  async run(ctx, args) {
    const { flags, positional } = parseFlags(args, [boolFlag('application', 'application')]);
    const [status, message = '', ...rest] = positional;
    if (status === undefined) throw usageError('invalid args [], require <status> [message]');
    if (!SETTABLE.includes(status)) throw usageError(`invalid status "${status}", expected one of [${SETTABLE.join(' ')}]`);
    checkEmpty(rest);
    // Application status is the leader's; drover has no leadership.
    if (flags.application === true) throw runtimeError('cannot set application status: this unit is not the leader');
    await ctx.setStatus({ status, message });
    return '';
  },
};

export const statusGet: ToolCommand = {
  name: 'status-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [
      ...outputFlags,
      boolFlag('includeData', 'include-data'),
      boolFlag('application', 'application'),
    ]);
    const format = formatOf(flags);
    checkEmpty(positional);
    if (flags.application === true) throw runtimeError('finding application status: this unit is not the leader');
    const { status, message } = ctx.status();
    if (flags.includeData !== true && format === 'smart') return output(status, flags, io);
    const details: Record<string, unknown> = { status };
    if (flags.includeData === true) Object.assign(details, { message, 'status-data': {} });
    return output(details, flags, io);
  },
};
