// The scheduled functions' entry points run one at a time through a lease in the table
// (shared/state/operations/run-lease.ts), not reserved concurrency (infra/functions.ts says why):
// a run that finds the lease held exits at once. The lease lasts as long as this invocation may
// (its remaining time when it starts), and is held by its request id.
import type { Context } from 'aws-lambda';
import type { Store } from '#shared/state/engine/store.js';
import { withRunLease, type SKIPPED } from '#shared/state/operations/run-lease.js';

/** The scheduled jobs, each with a lease of its own (the names of infra/functions.ts's keys). */
export type ScheduledJob = 'provisionerReconcile' | 'cleanupSweep' | 'watchdog';

export type LeaseContext = Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>;

/** Wraps a scheduled run so that a second one started while it runs returns SKIPPED at once. */
export function singleRun<E, T>(
  job: ScheduledJob,
  store: () => Store,
  run: (event: E, context: LeaseContext) => Promise<T>,
): (event: E, context: LeaseContext) => Promise<T | typeof SKIPPED> {
  return (event, context) =>
    withRunLease(store(), { job, holder: context.awsRequestId, durationMs: context.getRemainingTimeInMillis() }, () => run(event, context));
}
