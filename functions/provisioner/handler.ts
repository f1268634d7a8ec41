// The provisioner's Lambda functions, thin over shared/provisioner:
// - `handler`: the table's stream; reconciles every machine a batch touches, and reports the
//   records of machines that failed (functions/stream-batch.ts) so only they are retried;
// - `reconcile`: the schedule; the full reconcile that finds strays and covers lost records,
//   one run at a time (infra/functions.ts), stopping before the function's timeout.
// Both build their dependencies from the environment on first use (env.ts), so importing this
// module needs no AWS configuration.
import type { Context, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { limiter } from '#shared/domain/bounded.js';
import { logOf, policyOf, provisionerForModel, type ProvisionerDeps } from '#shared/provisioner/deps.js';
import { reconcileAll, type ReconcileAllResult } from '#shared/provisioner/reconcile-all.js';
import { reconcileMachine } from '#shared/provisioner/reconcile-machine.js';
import { streamBatchHandler, type StreamBatchHandler } from '../stream-batch.js';
import { provisionerDepsFromEnv } from './env.js';
import { singleRun } from '../single-run.js';
import { machineOf, machinesOf, type RecordedMachine } from './machine-records.js';
import { errorMessage } from '#shared/domain/errors.js';

export function createProvisionerHandler(deps: ProvisionerDeps): StreamBatchHandler {
  return streamBatchHandler(
    (records) => {
      // Each machine the batch names is reconciled once (unless its latest record shows it running:
      // machine-records.ts), at most `concurrency` at a time: one machine's StartInstance retries
      // must not hold up the rest. Its records share the outcome.
      const outcomes = reconcileEach(deps, machinesOf(records));
      return async (record) => {
        const machine = machineOf(record);
        if (machine !== undefined) await outcomes.get(machine.key);
      };
    },
    { inParallel: true },
  );
}

/**
 * Starts every machine's reconcile, each in its own model; a failed one is logged, and its promise
 * rejects for its records. Keyed by the machine's item key: machine ids repeat across models.
 */
function reconcileEach(deps: ProvisionerDeps, machines: RecordedMachine[]): Map<string, Promise<void>> {
  const bounded = limiter(policyOf(deps).concurrency);
  return new Map(
    machines.map(({ model, machineId, key }) => {
      const outcome = bounded(async () => void (await reconcileMachine(provisionerForModel(deps, model), machineId))).catch(
        (e: unknown) => {
          logOf(deps).error('cannot reconcile machine', { model, machineId, error: errorMessage(e) });
          throw e;
        },
      );
      // Awaited by the machine's records; this only keeps the rejection from counting as unhandled meanwhile.
      outcome.catch(() => undefined);
      return [key, outcome];
    }),
  );
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
/** The schedule's entry point, one run at a time (functions/single-run.ts). */
export const reconcile = singleRun(
  'provisionerReconcile',
  () => envDeps().store,
  (event: ScheduledEvent, context) => createReconcileHandler(envDeps())(event, context),
);
export default handler;
