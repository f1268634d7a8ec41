// A plan's changes as DynamoDB can take them: one action per item. Two changes of one item
// (an update and a check, say, from two parts of one plan) become one update whose condition
// asserts both; anything else twice on one item is a plan that contradicts itself.
import { refName, type Change, type Expect } from './plan.js';

/**
 * A plan no transaction can carry: a bug when planned from a fresh read, but possible from a
 * stale snapshot (shared/state/engine/snapshot-cache.ts).
 */
export class InconsistentPlanError extends Error {}

/** Two changes are of one item when their refs and models are the same (absent: the store's). */
// An offer's ref names its model itself (plan.ts), whatever the change says.
const itemId = (change: Change) => JSON.stringify([change.ref.kind === 'offer' ? change.ref.model : (change.model ?? null), change.ref]);

/** Merges updates and checks of the same item: DynamoDB refuses two actions on one item. */
export function mergeChanges(changes: Change[]): Change[] {
  const byRef = new Map<string, Change>();
  for (const change of changes) {
    const id = itemId(change);
    const prior = byRef.get(id);
    if (!prior) {
      byRef.set(id, change);
      continue;
    }
    if ((prior.op !== 'update' && prior.op !== 'check') || (change.op !== 'update' && change.op !== 'check')) {
      throw new InconsistentPlanError(`plan changes ${refName(change.ref)} twice (${prior.op} and ${change.op})`);
    }
    const a = prior.op === 'update' ? prior : { op: 'update' as const, ref: prior.ref, expect: prior.expect };
    const b = change.op === 'update' ? change : { op: 'update' as const, ref: change.ref, expect: change.expect };
    byRef.set(id, {
      ...(change.model !== undefined ? { model: change.model } : {}),
      op: 'update',
      ref: change.ref,
      set: { ...a.set, ...b.set },
      unset: [...(a.unset ?? []), ...(b.unset ?? [])],
      add: { ...a.add, ...b.add },
      addToSet: { ...a.addToSet, ...b.addToSet },
      removeFromSet: { ...a.removeFromSet, ...b.removeFromSet },
      stuck: b.stuck ?? a.stuck,
      expect: mergeExpect(a.expect, b.expect),
    });
  }
  return [...byRef.values()].map((c) =>
    c.op === 'update' && isPureCheck(c)
      ? { ...(c.model !== undefined ? { model: c.model } : {}), op: 'check', ref: c.ref, expect: c.expect ?? {} }
      : c,
  );
}

function isPureCheck(c: Extract<Change, { op: 'update' }>): boolean {
  const empty = (o?: object) => !o || Object.keys(o).length === 0;
  return empty(c.set) && !c.unset?.length && empty(c.add) && empty(c.addToSet) && empty(c.removeFromSet) && !c.stuck;
}

/** Two changes of one item may each need members of the same set: the merged item needs them all. */
function mergeContains(a: Expect['contains'], b: Expect['contains']): Expect['contains'] {
  const merged: Record<string, string | string[]> = { ...a };
  for (const [attribute, members] of Object.entries(b ?? {})) {
    const prior = merged[attribute];
    merged[attribute] = prior === undefined ? members : [...new Set([prior, members].flat())];
  }
  return merged;
}

/** Both bounds hold when the higher one does. */
function mergeAtLeast(a: Expect['atLeast'], b: Expect['atLeast']): Expect['atLeast'] {
  const merged: Record<string, number> = { ...a };
  for (const [attribute, n] of Object.entries(b ?? {})) merged[attribute] = Math.max(n, merged[attribute] ?? n);
  return merged;
}

function mergeExpect(a?: Expect, b?: Expect): Expect | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    life: b.life ?? a.life,
    equals: { ...a.equals, ...b.equals },
    absent: [...(a.absent ?? []), ...(b.absent ?? [])],
    contains: mergeContains(a.contains, b.contains),
    lacks: { ...a.lacks, ...b.lacks },
    setSize: { ...a.setSize, ...b.setSize },
    atLeast: mergeAtLeast(a.atLeast, b.atLeast),
  };
}
