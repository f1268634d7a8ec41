// Scheduled: finds entities Dying for longer than a threshold and machines in provisioning error,
// and emits them as CloudWatch metrics (EMF, through Powertools Metrics) and log lines, so that
// what is stuck shows on the dashboard and can alarm. The API serves the same list (`drover stuck`).
// One run covers every model of the controller: the metrics count them all, each log line says whose.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { listStuck } from '#shared/state/queries/stuck.js';
import { remediesOf, type StuckEntity } from '#shared/domain/stuck-entity.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { storesToSweep } from '#shared/state/queries/models-to-sweep.js';
import { DEFAULT_STUCK_AFTER_SECONDS } from '#shared/domain/stuck.js';
import { environmentOf, type Environment } from '../environment.js';
import { singleRun } from '../single-run.js';

export interface WatchdogDeps {
  store: Store;
  /**
   * The `controller` dimension of every metric: two controllers in one account and region
   * publish to the same namespace, and without it each would set off the other's alarms.
   */
  controllerId?: string;
  /** Dying for longer than this is "stuck" (seconds). */
  thresholdSeconds: number;
  metrics?: Metrics;
  logger?: Logger;
}

export interface WatchdogReport {
  dyingTooLong: number;
  provisioningErrors: number;
  /** Every model's, each with its model's key. */
  stuck: (StuckEntity & { model: string })[];
}

export function createWatchdogHandler(deps: WatchdogDeps) {
  const metrics =
    deps.metrics ??
    new Metrics({
      namespace: 'drover',
      serviceName: 'watchdog',
      ...(deps.controllerId ? { defaultDimensions: { controller: deps.controllerId } } : {}),
    });
  const logger = deps.logger ?? new Logger({ serviceName: 'watchdog' });
  return async (): Promise<WatchdogReport> => {
    const stuck: WatchdogReport['stuck'] = [];
    for (const store of await storesToSweep(deps.store))
      stuck.push(...(await listStuck(store, deps.thresholdSeconds)).map((s) => ({ ...s, model: store.model })));
    const provisioningErrors = stuck.filter((s) => s.life === 'alive' && s.kind === 'machine').length;
    const dyingTooLong = stuck.length - provisioningErrors;
    // Only what is non-zero: each custom metric that has data costs $0.30 a month, so zeros
    // published every run would cost $0.60 a month at rest for saying nothing. The alarms read
    // no data as good news (infra/observability.ts), and publishing nothing at all also keeps
    // Powertools from logging "No application metrics to publish" on every quiet run.
    if (dyingTooLong > 0) metrics.addMetric('DyingTooLong', MetricUnit.Count, dyingTooLong);
    if (provisioningErrors > 0) metrics.addMetric('ProvisioningErrors', MetricUnit.Count, provisioningErrors);
    for (const s of stuck)
      logger.warn('stuck', {
        model: s.model,
        entity: s.entity,
        life: s.life,
        since: s.since,
        ageSeconds: s.ageSeconds,
        reasons: s.reasons,
        // Flat fields for CloudWatch Logs Insights (the dashboard's table and the saved query,
        // infra/log-queries.ts): what holds it, and what to run.
        blockedBy: s.reasons.join('; '),
        remedy: remediesOf(s.reasons).join('; ') || 'none: it goes once what holds it is gone',
      });
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    return { dyingTooLong, provisioningErrors, stuck };
  };
}

let lambdaDeps: WatchdogDeps | undefined;
let lambdaHandler: (() => Promise<WatchdogReport>) | undefined;
const envDeps = () => (lambdaDeps ??= fromEnvironment(environmentOf('watchdog')));

/** The Lambda entry point, one run at a time (functions/single-run.ts); built on first use from the function's environment. */
export const handler = singleRun(
  'watchdog',
  () => envDeps().store,
  () => (lambdaHandler ??= createWatchdogHandler(envDeps()))(),
);

function fromEnvironment(env: Environment): WatchdogDeps {
  const endpoint = env.optional('DYNAMODB_ENDPOINT');
  return {
    store: createStore({ table: env.required('TABLE_NAME'), ...(endpoint ? { endpoint } : {}) }),
    thresholdSeconds: env.seconds('STUCK_AFTER_SECONDS', DEFAULT_STUCK_AFTER_SECONDS),
    ...(env.optional('CONTROLLER_ID') ? { controllerId: env.required('CONTROLLER_ID') } : {}),
  };
}
