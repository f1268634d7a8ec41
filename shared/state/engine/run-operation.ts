// The shape of every state change: read what it needs → plan (pure) → one TransactWriteItems.
//
// When DynamoDB cancels the transaction, the operation reads again and plans again, exactly as
// Juju's mgo/txn "build transaction" loop does. That one step sorts the three outcomes the
// CancellationReasons can stand for:
// - already done (someone else did it) → the new plan is empty → success;
// - no longer valid (a condition now fails for good) → the planner throws a typed error;
// - conflict (a concurrent transaction, or a condition that changed but still allows the
//   operation) → a new plan, committed after a jittered backoff.
// After MAX_ATTEMPTS it gives up with Juju's "state changing too quickly; try again soon".
//
// An operation may also ask to speculate: its first attempt plans from the snapshot cache
// (snapshot-cache.ts) instead of reading, so the common case costs its transaction alone. Only a
// speculative plan that commits counts: one that fails, finds nothing to do, or is cancelled is
// thrown away and the operation goes on as above from a fresh read, so a stale cache can cost
// time but never change an outcome.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Plan } from '../../domain/plan.js';
import { DroverError, errorMessage } from '../../domain/errors.js';
import { InconsistentPlanError } from '../../domain/merge-changes.js';
import { commit } from './commit.js';
import { isItemTooLarge, itemTooLarge } from './item-too-large.js';
import { Speculation } from './snapshot-cache.js';
import type { Store } from './store.js';

export const MAX_ATTEMPTS = 8;

/** Reasons that say the request itself was malformed: a bug, never worth retrying. */
const BUG_REASONS = new Set(['ValidationError']);

export function cancellationCodes(e: unknown): string[] | undefined {
  if (!(e instanceof TransactionCanceledException)) return undefined;
  return (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** attempt)));

export interface OperationOptions {
  /** Plan first from the snapshot cache, for operations whose transactions assert every fact read. */
  speculate?: boolean;
}

/** Reads and plans; `store` is the one to read through (a speculative attempt's own view). */
export type Attempt<T> = (store: Store) => Promise<Plan<T>>;

/**
 * Runs `attempt` (read → plan) and commits its plan, retrying on cancellation.
 * `description` prefixes the contention error, e.g. `cannot destroy unit "wordpress/1"`.
 */
export async function runOperation<T>(store: Store, description: string, attempt: Attempt<T>, options: OperationOptions = {}): Promise<T> {
  let attempts = 0;
  if (options.speculate && store.cache) {
    const speculated = await speculate(store, description, attempt);
    if (speculated === 'cancelled') attempts = 1;
    else if (speculated) return speculated.result;
  }
  for (let i = attempts; i < MAX_ATTEMPTS; i++) {
    const plan = await attempt(store);
    if (plan.changes.length === 0) return plan.result;
    try {
      await commit(store, plan.changes);
      store.cache?.committed(store.model, plan.changes);
      return plan.result;
    } catch (e) {
      rethrowUnlessCancelled(e, description);
      store.cache?.cancelled(store.model, plan.changes);
      await backoff(i);
    }
  }
  throw new DroverError('contention', `${description}: state changing too quickly; try again soon`);
}

/**
 * The speculative attempt: its result when its plan committed; 'cancelled' when its transaction
 * was (an attempt spent); undefined when it planned no transaction worth trusting.
 */
async function speculate<T>(store: Store, description: string, attempt: Attempt<T>) {
  const cache = store.cache!;
  const speculation = new Speculation(cache);
  let plan: Plan<T>;
  try {
    plan = await attempt({ ...store, speculation });
  } catch (e) {
    // An error planned from cached items may be stale ("already exists"): the fresh attempt decides.
    if (speculation.served.size === 0) throw e;
    return undefined;
  }
  // So may "nothing to do" ("already dying").
  if (plan.changes.length === 0) return speculation.served.size === 0 ? { result: plan.result } : undefined;
  try {
    await commit(store, plan.changes);
  } catch (e) {
    // A stale snapshot can even make a plan no transaction can carry: start again from a read.
    if (!(e instanceof InconsistentPlanError && speculation.served.size > 0)) rethrowUnlessCancelled(e, description);
    cache.cancelled(store.model, plan.changes);
    for (const id of speculation.served) cache.forget(id);
    return 'cancelled' as const;
  }
  cache.committed(store.model, plan.changes);
  return { result: plan.result };
}

function rethrowUnlessCancelled(e: unknown, description: string) {
  // Too much data is the client's to fix, not a bug: a 400 that says so (item-too-large.ts).
  if (isItemTooLarge(e)) throw itemTooLarge(description);
  const codes = cancellationCodes(e);
  if (!codes) throw e;
  if (codes.some((c) => BUG_REASONS.has(c))) {
    throw new Error(`${description}: transaction rejected as invalid (${codes.join(', ')}): ${errorMessage(e)}`);
  }
}
