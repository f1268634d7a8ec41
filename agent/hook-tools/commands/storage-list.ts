// storage-list [--format] [<storage-name>]: "the names of all storage instances attached to the
// unit", as juju/juju
// https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/jujuc/storage-list.go.
// drover provisions no storage, so no unit has any attached: the list is empty (`[]` in JSON),
// which is what a charm reading its declared storage (ops's `model.storages`) must see.
import { parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const storageList: ToolCommand = {
  name: 'storage-list',
  async run(_ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    // cmd.ZeroOrOneArgs: an optional storage name, nothing after it.
    checkEmpty(positional.slice(1));
    return output([], flags, io);
  },
};
