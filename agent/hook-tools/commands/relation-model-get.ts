// relation-model-get [-r <id>]: "details about the model hosting the application on the other
// end of a unit relation", as juju/juju
// https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/jujuc/relation-model-get.go:
// `uuid`, the remote model's. drover relates applications of one model only, so it is this one's.
import { parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { relationFlag, relationFromFlag } from '../relation-flag.js';
import { checkEmpty } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const relationModelGet: ToolCommand = {
  name: 'relation-model-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, relationFlag(ctx)]);
    relationFromFlag(ctx, flags.relation);
    checkEmpty(positional);
    return output({ uuid: ctx.modelUuid }, flags, io);
  },
};
