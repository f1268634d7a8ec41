// The scheduled cleanup sweep. Cleanup documents are run from the stream by the `changes`
// function (functions/changes/cleanups.ts); this picks up those whose `notBefore` has passed and
// any whose stream record was lost, and releases leadership leases that ran out, in every model.
import { releaseAbandonedLeases } from '#shared/state/operations/leadership.js';
import { listCleanups, runCleanupBatch } from '#shared/state/operations/cleanup/run-cleanups.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { storesToSweep } from '#shared/state/queries/models-to-sweep.js';
import { environmentOf } from '../environment.js';
import { singleRun } from '../single-run.js';

/** The schedule's sweep of one model (the store's): one batch of every cleanup that is due. */
export async function runDueCleanups(store: Store): Promise<number> {
  const now = store.now().toISOString();
  let ran = 0;
  for (const cleanup of await listCleanups(store)) {
    if (cleanup.notBefore && cleanup.notBefore > now) continue;
    await runCleanupBatch(store, cleanup.id);
    ran++;
  }
  return ran;
}

/**
 * The whole periodic sweep, of every model: due cleanups, and the leases that have run out (their
 * leaders did not renew them) — nothing else tells the other units that a silent leader is gone,
 * so without this they would claim only at their next resync. A model that fails does not keep
 * the others from their sweep; the run fails after them, so the failure is seen. Returns the
 * cleanup batches run.
 */
export async function sweep(store: Store): Promise<number> {
  let ran = 0;
  const failures: unknown[] = [];
  for (const modelStore of await storesToSweep(store)) {
    try {
      await releaseAbandonedLeases(modelStore);
      ran += await runDueCleanups(modelStore);
    } catch (e) {
      failures.push(e);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `the cleanup sweep failed in ${failures.length} models`);
  return ran;
}

let lambdaStore: Store | undefined;

const envStore = () => (lambdaStore ??= createStore({ table: environmentOf('cleanup sweep').required('TABLE_NAME') }));

/** The Lambda entry point, one run at a time (functions/single-run.ts); its store is built on first use from the function's environment. */
export const sweepHandler = singleRun('cleanupSweep', envStore, () => sweep(envStore()));
