// storage-list [--format] [<storage-name>]: "the names of all storage instances attached to the
// unit", optionally only those of one storage name, as juju/juju
// https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/jujuc/storage-list.go.
// ops calls it as `storage-list <name> --format=json` and reads the numbers after the `/`.
import { storageNameOf } from '../../storage/unit-storage.js';
import { parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const storageList: ToolCommand = {
  name: 'storage-list',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    // cmd.ZeroOrOneArgs: an optional storage name, nothing after it.
    const [name, ...rest] = positional;
    checkEmpty(rest);
    const ids = ctx
      .storageAttachments()
      .map((s) => s.id)
      .filter((id) => !name || storageNameOf(id) === name);
    return output(ids, flags, io);
  },
};
