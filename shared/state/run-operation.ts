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
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Plan } from '../domain/plan.js';
import { DroverError } from '../domain/errors.js';
import { commit } from './commit.js';
import type { Store } from './store.js';

export const MAX_ATTEMPTS = 8;

/** Reasons that say the request itself was malformed: a bug, never worth retrying. */
const BUG_REASONS = new Set(['ValidationError']);

export function cancellationCodes(e: unknown): string[] | undefined {
  if (!(e instanceof TransactionCanceledException)) return undefined;
  return (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** attempt)));

/**
 * Runs `attempt` (read → plan) and commits its plan, retrying on cancellation.
 * `description` prefixes the contention error, e.g. `cannot destroy unit "wordpress/1"`.
 */
export async function runOperation<T>(store: Store, description: string, attempt: () => Promise<Plan<T>>): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const plan = await attempt();
    if (plan.changes.length === 0) return plan.result;
    try {
      await commit(store, plan.changes);
      return plan.result;
    } catch (e) {
      const codes = cancellationCodes(e);
      if (!codes) throw e;
      if (codes.some((c) => BUG_REASONS.has(c))) {
        throw new Error(`${description}: transaction rejected as invalid (${codes.join(', ')}): ${(e as Error).message}`);
      }
      await backoff(i);
    }
  }
  throw new DroverError('contention', `${description}: state changing too quickly; try again soon`);
}
