// The -r/--relation flag of the relation-* tools and network-get, as Juju's relationIdValue
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/jujuc/context.go): the id
// is the number after the last colon, so `db:3`, `3` and `anything:3` all name relation 3 (the
// name before it is for people, "the identification of the relation is the integer following the
// colon"). Without the flag, the hook's own relation (charms-in-action.txt: "The relation-* hook
// tools, which ordinarily require that a relation be specified, assume they're being called with
// respect to the current relation").
import type { FlagSpec } from './flags.js';
import type { ToolContext, ToolRelation } from './tool-context.js';
import { usageError } from './tool-errors.js';

/** The relation `text` names; throws Juju's reason (gnuflag prefixes the flag) when none. */
function relationNamed(ctx: ToolContext, text: string): ToolRelation {
  const id = text.slice(text.lastIndexOf(':') + 1);
  // Go's strconv.Atoi: an optional sign, then decimal digits.
  if (!/^[+-]?\d+$/.test(id)) throw new Error('invalid relation id');
  const relation = ctx.relations().find((r) => r.id === Number(id));
  if (!relation) throw new Error('relation not found');
  return relation;
}

/** `-r`/`--relation`, refused as it is parsed when it names no relation of this unit. */
export const relationFlag = (ctx: ToolContext): FlagSpec => ({
  names: ['r', 'relation'],
  kind: 'string',
  key: 'relation',
  check: (value) => void relationNamed(ctx, value),
});

/** The relation the parsed flag names, or the hook's own. */
export function relationFromFlag(ctx: ToolContext, value: string | boolean | undefined): ToolRelation {
  if (typeof value === 'string') return relationNamed(ctx, value);
  const current = ctx.hookRelationId !== undefined ? ctx.relations().find((r) => r.id === ctx.hookRelationId) : undefined;
  if (!current) throw usageError('no relation id specified');
  return current;
}

export const relationLabel = (r: ToolRelation) => `${r.endpoint}:${r.id}`;
