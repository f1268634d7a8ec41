// storage-add <name>[=<count>] ...: more instances of the charm's storage for the unit, added when
// the hook commits, as juju/juju
// https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/jujuc/storage-add.go does
// (its HookContext keeps the directives until the hook's changes are flushed). A directive is
// parsed as Juju's storage.ParseDirectivesMap parses one, and only a count may be given.
// ops calls it as `storage-add <name>=<count>`.
import { parseFlags } from '../flags.js';
import { usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';
import { errorMessage } from '#shared/domain/errors.js';

const POOL = /^[a-zA-Z]+[-?a-zA-Z0-9]*$/;
const COUNT = /^-?[0-9]+$/;
const SIZE = /^-?[0-9]+(?:\.[0-9]+)?[MGTPEZY](?:i?B)?$/;

interface Directive {
  pool?: string;
  sized?: boolean;
  count: number;
}

/** storage.ParseDirective: a comma-separated pool, count and size, in any order; count defaults to 1. */
function parseDirective(text: string): Directive {
  const directive: Directive = { count: 0 };
  for (const field of text.split(',')) {
    if (field === '') continue;
    if (POOL.test(field)) {
      if (directive.pool !== undefined)
        throw new Error(`pool name is already set to ${JSON.stringify(directive.pool)}, new value ${JSON.stringify(field)} not valid`);
      directive.pool = field;
    } else if (COUNT.test(field) && (field.startsWith('-') || Number.isSafeInteger(Number(field)))) {
      const count = Number(field);
      if (field.startsWith('-') || count === 0)
        throw new Error(`cannot parse count: count must be greater than zero, got ${JSON.stringify(field)}`);
      directive.count = count;
    } else if (SIZE.test(field)) {
      // utils.ParseSize reads the number before the suffix; a sign makes it no number at all.
      if (field.startsWith('-')) throw new Error(`cannot parse size: expected a non-negative number, got ${JSON.stringify(field)}`);
      directive.sized = true;
    } else {
      throw new Error(`unrecognized storage directive ${JSON.stringify(field)} not valid`);
    }
  }
  if (directive.count === 0 && !directive.sized && directive.pool === undefined)
    throw new Error('storage directives require at least one field to be specified');
  if (directive.count === 0) directive.count = 1;
  return directive;
}

/** storage.ParseDirectivesMap(args, false), then storage-add's own rule: only a count. */
export function parseStorageCounts(args: string[]): Record<string, number> {
  if (args.length < 1) throw usageError('storage add requires a storage directive');
  const counts: Record<string, number> = {};
  for (const arg of args) {
    const parts = arg.split('=');
    const name = parts[0]!;
    if (parts.length > 2 || name === '') throw usageError(`expected "name=directive" or "name", got ${JSON.stringify(arg)}`);
    if (Object.hasOwn(counts, name)) throw usageError(`storage ${JSON.stringify(name)} specified more than once`);
    let directive: Directive;
    try {
      directive = parseDirective(parts[1] ?? '1');
    } catch (e) {
      throw usageError(`cannot parse directive for storage ${JSON.stringify(name)}: ${errorMessage(e)}`);
    }
    if (directive.pool !== undefined || directive.sized) throw usageError(`only count can be specified for ${JSON.stringify(name)}`);
    counts[name] = directive.count;
  }
  return counts;
}

export const storageAdd: ToolCommand = {
  name: 'storage-add',
  async run(ctx, args) {
    // No flags of its own: any option is one "provided but not defined".
    const { positional } = parseFlags(args, []);
    ctx.addStorage(parseStorageCounts(positional));
    return '';
  },
};
