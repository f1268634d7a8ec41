// One run at a time of a scheduled job (the provisioner's reconcile, the cleanup sweep, the
// watchdog) without reserved concurrency, which accounts whose concurrency quota is 10 or 50
// refuse: a lease in the table, as leadership holds one (shared/domain/leadership.ts). A run takes
// the job's lease with one conditional write, which fails while another run holds it; that run
// exits at once. The lease lasts as long as the function may run (its timeout), so a run that
// crashed without releasing it holds up the next runs no longer than that; a run that ends
// releases it, only if it still holds it.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { runLeaseKey } from '../engine/keys.js';
import type { Store } from '../engine/store.js';

export interface RunLease {
  /** The job, one lease each: `provisionerReconcile`, `cleanupSweep`, `watchdog`. */
  job: string;
  /** This run (the Lambda request id): only it releases what it took. */
  holder: string;
  /** How long the lease lasts unless released: the function's longest run. */
  durationMs: number;
}

/** Takes the job's lease for this run; false when another run holds it and it has not run out. */
export async function takeRunLease(store: Store, lease: RunLease): Promise<boolean> {
  const now = store.now().getTime();
  try {
    await store.doc.send(
      new PutCommand({
        TableName: store.table,
        Item: { ...runLeaseKey(lease.job), holder: lease.holder, heldUntil: now + lease.durationMs },
        ConditionExpression: 'attribute_not_exists(#heldUntil) OR #heldUntil <= :now',
        ExpressionAttributeNames: { '#heldUntil': 'heldUntil' },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** Gives the lease up, unless another run took it meanwhile (this one outlived its lease). */
export async function releaseRunLease(store: Store, lease: Pick<RunLease, 'job' | 'holder'>): Promise<void> {
  try {
    await store.doc.send(
      new DeleteCommand({
        TableName: store.table,
        Key: runLeaseKey(lease.job),
        ConditionExpression: '#holder = :holder',
        ExpressionAttributeNames: { '#holder': 'holder' },
        ExpressionAttributeValues: { ':holder': lease.holder },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}

/** What a scheduled run returns when another run of its job holds the lease. */
export const SKIPPED = { skipped: 'another run of this job holds its lease' } as const;

/**
 * Runs `run` holding the job's lease, and releases it afterwards (failed or not); when another run
 * holds it, runs nothing and returns SKIPPED.
 */
export async function withRunLease<T>(store: Store, lease: RunLease, run: () => Promise<T>): Promise<T | typeof SKIPPED> {
  if (!(await takeRunLease(store, lease))) return SKIPPED;
  try {
    return await run();
  } finally {
    await releaseRunLease(store, lease);
  }
}
