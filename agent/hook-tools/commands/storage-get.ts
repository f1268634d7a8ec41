// storage-get [-s <id>] [--format] [<key>]: the kind and location of a storage instance attached
// to the unit: the hook's own in a storage hook, else the one `-s` names (juju/juju
// https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/jujuc/storage-get.go and
// storage-id.go). ops calls `storage-get -s <id> location --format=json`, and lately
// `storage-get --format=json -s <id>` for both keys. ops 2.x learns which storage a storage hook
// is for from `storage-get --help`, whose `-s` line shows the hook's storage as the flag's default
// (ops/model.py, _storage_event_details), so --help prints Juju's help, that line included.
import { isValidStorageId } from '../../storage/unit-storage.js';
import { parseFlags, stringFlag, type FlagSpec } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import type { ToolContext, ToolStorage } from '../tool-context.js';
import { checkEmpty, runtimeError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';
import { errorMessage } from '#shared/domain/errors.js';

/**
 * The attachment with this id, as the uniter API answers for it: refused when the unit has no
 * such attachment (state's NotFound) or it is not attached yet (NotProvisioned).
 */
function attachment(ctx: ToolContext, id: string): ToolStorage & { location: string } {
  const found = ctx.storageAttachments().find((s) => s.id === id);
  if (!found) throw new Error(`storage attachment ${id}:${ctx.unitName} not found`);
  if (found.location === undefined) throw new Error(`storage ${id} not provisioned`);
  return { ...found, location: found.location };
}

/** `-s`, checked as gnuflag sets it (storageIdValue.Set): a valid id of the unit's storage. */
function storageIdFlag(ctx: ToolContext): FlagSpec {
  return {
    ...stringFlag('storage', 's'),
    check: (value) => {
      if (!isValidStorageId(value)) throw new Error(`invalid storage ID ${JSON.stringify(value)}`);
      attachment(ctx, value);
    },
  };
}

/**
 * Juju's help for storage-get (internal/cmd Info.HelpWithSuperFlags, gnuflag's PrintDefaults): the
 * `-s` line shows the hook's own storage id as its default, as storageIdValue.String() does.
 */
function help(ctx: ToolContext): string {
  return [
    'Usage: storage-get [options] [<key>]',
    '',
    'Summary:',
    'Print information for the storage instance with the specified ID.',
    '',
    'Options:',
    '--format  (= smart)',
    '    Specify output format (json|smart|yaml)',
    '-o, --output (= "")',
    '    Specify an output file',
    `-s  (= ${ctx.hookStorageId ?? ''})`,
    '    specify a storage instance by id',
    '',
    'Details:',
    'When no <key> is supplied, all keys values are printed.',
    '',
    'Further details:',
    'storage-get obtains information about storage being attached',
    'to, or detaching from, the unit.',
    '',
    'If the executing hook is a storage hook, information about',
    'the storage related to the hook will be reported; this may',
    'be overridden by specifying the name of the storage as reported',
    'by storage-list, and must be specified for non-storage hooks.',
    '',
    'storage-get can be used to identify the storage location during',
    'storage-attached and storage-detaching hooks. The exception to',
    'this is when the charm specifies a static location for',
    'singleton stores.',
    '',
    'Examples:',
    '    # retrieve information by UUID',
    '    storage-get 21127934-8986-11e5-af63-feff819cdc9f',
    '',
    '    # retrieve information by name',
    '    storage-get -s data/0',
    '',
  ].join('\n');
}

export const storageGet: ToolCommand = {
  name: 'storage-get',
  async run(ctx, args, io) {
    // gnuflag answers -h and --help before anything else, with exit status 0.
    if (args.includes('--help') || args.includes('-h')) return help(ctx);
    const { flags, positional } = parseFlags(args, [...outputFlags, storageIdFlag(ctx)]);
    const id = typeof flags.storage === 'string' ? flags.storage : ctx.hookStorageId;
    if (id === undefined) throw usageError('no storage instance specified');
    const [key, ...rest] = positional;
    checkEmpty(rest); // cmd.ZeroOrOneArgs
    let storage: ToolStorage & { location: string };
    try {
      storage = attachment(ctx, id);
    } catch (e) {
      throw runtimeError(errorMessage(e));
    }
    const values: Record<string, string> = { kind: storage.kind, location: storage.location };
    if (key === undefined || key === '') return output(values, flags, io);
    if (Object.hasOwn(values, key)) return output(values[key], flags, io);
    throw runtimeError(`invalid storage attribute ${JSON.stringify(key)}`);
  },
};
