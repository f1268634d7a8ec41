// The provisioner's Lambda functions, thin over shared/provisioner:
// - `handler`: the table's stream; reconciles every machine a batch touches, and reports the
//   records of machines that failed (ReportBatchItemFailures) so only they are retried;
// - `reconcile`: the schedule; the full reconcile that finds strays and covers lost records,
//   one run at a time (infra/functions.ts), stopping before the function's timeout.
// Both build their dependencies from the environment on first use (env.ts), so importing this
// module needs no AWS configuration.
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { forEachBounded } from '../../shared/provisioner/bounded.js';
import { logOf, policyOf, type ProvisionerDeps } from '../../shared/provisioner/deps.js';
import { reconcileAll, type ReconcileAllResult } from '../../shared/provisioner/reconcile-all.js';
import { reconcileMachine } from '../../shared/provisioner/reconcile-machine.js';
import { provisionerDepsFromEnv } from './env.js';
import { machineRecords } from './machine-records.js';

export function createProvisionerHandler(deps: ProvisionerDeps) {
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const byMachine = [...machineRecords(event.Records ?? [], deps.store.model)];
    const failed: string[] = [];
    // Machines in parallel: one machine's StartInstance retries must not hold up the rest.
    await forEachBounded(byMachine, policyOf(deps).concurrency, async ([machineId, sequenceNumbers]) => {
      try {
        await reconcileMachine(deps, machineId);
      } catch (e) {
        logOf(deps).error('cannot reconcile machine', { machineId, error: e instanceof Error ? e.message : String(e) });
        failed.push(...sequenceNumbers);
      }
    });
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/**
 * Time kept back from the function's timeout: one machine's reconcile at its slowest (every start
 * attempt and the pauses between them), and a little for the report.
 */
export function reconcileMarginMs(deps: ProvisionerDeps): number {
  const { startAttempts, retryDelayMs } = policyOf(deps);
  return startAttempts * retryDelayMs + 30_000;
}

export function createReconcileHandler(deps: ProvisionerDeps) {
  return async (_event?: ScheduledEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<ReconcileAllResult> =>
    reconcileAll(deps, context ? { deadline: Date.now() + context.getRemainingTimeInMillis() - reconcileMarginMs(deps) } : {});
}

let depsFromEnv: ProvisionerDeps | undefined;
const envDeps = () => (depsFromEnv ??= provisionerDepsFromEnv(process.env));

export const handler = (event: DynamoDBStreamEvent) => createProvisionerHandler(envDeps())(event);
export const reconcile = (event: ScheduledEvent, context: Context) => createReconcileHandler(envDeps())(event, context);
export default handler;
