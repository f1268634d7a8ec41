// status-set <maintenance|blocked|waiting|active> [message] and status-get [--include-data]:
// the workload status, "as Juju shows them" (Juju's status-set and status-get:
// https://github.com/juju/juju/tree/3.6/internal/worker/uniter/runner/jujuc). status-set applies at once.
import { boolFlag, parseFlags } from '../flags.js';
import { formatOf, outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty, runtimeError, usageError } from '../tool-errors.js';
import type { ApplicationStatusView, ToolContext, ToolIO } from '../tool-context.js';
import type { ToolCommand } from './command.js';
import { errorMessage } from '#shared/domain/errors.js';

const SETTABLE = ['maintenance', 'blocked', 'waiting', 'active'];

export const statusSet: ToolCommand = {
  name: 'status-set',
  async run(ctx, args) {
    const { flags, positional } = parseFlags(args, [boolFlag('application', 'application')]);
    const [status, message = '', ...rest] = positional;
    if (status === undefined) throw usageError('invalid args, require <status> [message]');
    if (!SETTABLE.includes(status)) throw usageError(`invalid status "${status}", expected one of [${SETTABLE.join(' ')}]`);
    checkEmpty(rest);
    // Application status is the leader's (ErrIsNotLeader: "this unit is not the leader").
    if (flags.application === true) await ctx.setApplicationStatus({ status, message });
    else await ctx.setStatus({ status, message });
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
    if (flags.application === true) return applicationStatus(ctx, flags.includeData === true, format, flags, io);
    const { status, message } = ctx.status();
    if (flags.includeData !== true && format === 'smart') return output(status, flags, io);
    const details: Record<string, unknown> = { status };
    if (flags.includeData === true) Object.assign(details, { message, 'status-data': {} });
    return output(details, flags, io);
  },
};

/**
 * jujuc/status-get.go's ApplicationStatus: the status alone in smart format without
 * --include-data; otherwise {"application-status": {status, [message, status-data,] units}}.
 */
async function applicationStatus(
  ctx: ToolContext,
  includeData: boolean,
  format: string,
  flags: Record<string, string | boolean>,
  io: ToolIO,
): Promise<string> {
  let answer: ApplicationStatusView;
  try {
    answer = await ctx.applicationStatus();
  } catch (e) {
    throw runtimeError(`finding application status: ${errorMessage(e)}`);
  }
  if (!includeData && format === 'smart') return output(answer.application.status, flags, io);
  const details = (s: { status: string; message: string; data: Record<string, unknown> }) =>
    includeData ? { status: s.status, message: s.message, 'status-data': s.data } : { status: s.status };
  const units = Object.fromEntries(answer.units.map((u) => [u.unit, details(u)]));
  return output({ 'application-status': { ...details(answer.application), units } }, flags, io);
}
