// resource-get <name>: the local path of the resource's file, downloaded from the controller
// first when the unit does not hold the revision its application uses (Juju 3.6's
// worker/uniter/runner/jujuc/resource-get.go, which annotates any failure "could not download
// resource"). A declared resource with no revision uploaded fails, as in Juju.
import { parseFlags } from '../flags.js';
import { checkEmpty, runtimeError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';
import { errorMessage } from '#shared/domain/errors.js';

export const resourceGet: ToolCommand = {
  name: 'resource-get',
  async run(ctx, args) {
    const { positional } = parseFlags(args, []);
    const [name, ...rest] = positional;
    if (name === undefined) throw usageError('missing required resource name');
    checkEmpty(rest);
    let path: string;
    try {
      path = await ctx.resourcePath(name);
    } catch (e) {
      throw runtimeError(`could not download resource: ${errorMessage(e)}`);
    }
    return `${path}\n`;
  },
};
