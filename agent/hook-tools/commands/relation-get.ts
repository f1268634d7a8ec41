// relation-get [<key>|-] [<unit>|<app>] [-r <id>] [--app]: "get the settings of some related
// unit", or with --app an application's bag (jujuc/relation-get.go). In relation hooks the
// relation and (except in -broken) the remote unit default to the hook's own; without a remote
// unit (an application -changed) the remote application's bag is read. The first read of any
// bag is remembered for the rest of the hook (the sandbox).
import { applicationOfUnit, isValidApplicationName, isValidUnitName } from '#shared/domain/names.js';
import { boolFlag, parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { relationFlag, relationFromFlag } from '../relation-flag.js';
import { checkEmpty, usageError } from '../tool-errors.js';
import type { ToolContext } from '../tool-context.js';
import type { ToolCommand } from './command.js';

/** Juju's determineUnitOrAppName: who is read, and whether it is an application's bag. */
function target(ctx: ToolContext, supplied: string | undefined, app: boolean): { name: string; app: boolean } {
  if (supplied !== undefined) {
    if (app) return { name: isValidUnitName(supplied) ? applicationOfUnit(supplied) : supplied, app };
    if (!isValidUnitName(supplied)) {
      if (isValidApplicationName(supplied)) throw usageError(`expected unit name, got application name "${supplied}"`);
      throw usageError(`invalid unit name "${supplied}"`);
    }
    return { name: supplied, app };
  }
  if (app) {
    if (ctx.remoteApplication === undefined) throw usageError('no unit or application specified');
    return { name: ctx.remoteApplication, app: true };
  }
  if (ctx.remoteUnit !== undefined) return { name: ctx.remoteUnit, app: false };
  if (ctx.remoteApplication !== undefined) return { name: ctx.remoteApplication, app: true };
  throw usageError('no unit or application specified');
}

export const relationGet: ToolCommand = {
  name: 'relation-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, relationFlag(ctx), boolFlag('app', 'app')]);
    const relation = relationFromFlag(ctx, flags.relation);
    const rest = [...positional];
    let key = rest.shift() ?? '';
    if (key === '-') key = '';
    const who = target(ctx, rest.shift(), flags.app === true);
    checkEmpty(rest);
    let settings: Record<string, string>;
    if (who.app) settings = await ctx.readAppSettings(relation.id, who.name);
    else settings = await ctx.readSettings(relation.id, who.name);
    return output(key === '' ? settings : Object.hasOwn(settings, key) ? settings[key] : null, flags, io);
  },
};
