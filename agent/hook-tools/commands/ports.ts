// open-port / close-port <port>[/<protocol>] | <from>-<to>[/<protocol>] | icmp: "marks the
// supplied port/protocol as ready to open when the service is exposed" (and the reverse).
// Buffered and committed with the hook's other changes when it succeeds, as Juju 2.x's
// HookContext.Flush does (https://github.com/juju/juju/blob/2.9/worker/uniter/runner/context/context.go).
// Juju 1 acted on state at once: the "not actually sandboxed" note of Juju's charms-in-action
// document (https://github.com/juju/juju/blob/7f5ca4e9229c4320911ac5436e489fd1f59d88c7/doc/charms-in-action.txt)
// and https://bugs.launchpad.net/juju/+bug/1089304.
import { DroverError } from '#shared/domain/errors.js';
import { canonicalPortRange } from '#shared/domain/port-ranges.js';
import { deprecatedFormatFlag, warnDeprecatedFormat } from '../deprecated-format.js';
import { parseFlags, stringFlag } from '../flags.js';
import { checkEmpty, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

function portCommand(name: 'open-port' | 'close-port'): ToolCommand {
  return {
    name,
    async run(ctx, args, io) {
      // --endpoints is taken and not narrowed to: drover opens ports for the whole unit.
      const { flags, positional } = parseFlags(args, [deprecatedFormatFlag, stringFlag('endpoints', 'endpoints')]);
      const [arg, ...rest] = positional;
      if (arg === undefined) throw usageError('no port or range specified');
      let range: string;
      try {
        range = canonicalPortRange(arg);
      } catch (e) {
        if (e instanceof DroverError) throw usageError(e.message);
        throw e;
      }
      checkEmpty(rest);
      warnDeprecatedFormat(flags, name, io);
      ctx.changePort(name === 'open-port' ? 'open' : 'close', range);
      return '';
    },
  };
}

export const openPort = portCommand('open-port');
export const closePort = portCommand('close-port');
