// The -r/--relation flag of the relation-* tools: `db:3` or `3`, defaulting to the hook's own
// relation (charms-in-action.txt: "The relation-* hook tools, which ordinarily require that a relation
// be specified, assume they're being called with respect to the current relation").
import type { ToolContext, ToolRelation } from './tool-context.js';
import { usageError } from './tool-errors.js';

export function relationFromFlag(ctx: ToolContext, value: string | boolean | undefined, flagName = '-r'): ToolRelation {
  if (value === undefined) {
    const current = ctx.hookRelationId !== undefined ? ctx.relations().find((r) => r.id === ctx.hookRelationId) : undefined;
    if (!current) throw usageError('no relation id specified');
    return current;
  }
  const text = String(value);
  const m = /^(?:([a-z][a-z0-9-]*):)?(\d+)$/.exec(text);
  if (!m) throw usageError(`invalid value "${text}" for flag ${flagName}: invalid relation id`);
  const relation = ctx.relations().find((r) => r.id === Number(m[2]) && (m[1] === undefined || r.endpoint === m[1]));
  if (!relation) throw usageError(`invalid value "${text}" for flag ${flagName}: relation not found`);
  return relation;
}

export const relationLabel = (r: ToolRelation) => `${r.endpoint}:${r.id}`;
