// The periodic work that covers what the stream cannot: the watchdog (what is stuck), the
// provisioner's full reconcile (lost stream records, transient provisioning errors, stray
// instances) and the cleanup sweep (cleanups whose `notBefore` has passed, lost records, run-out
// leadership leases).
// EventBridge scheduled rules are free, but each run is a Lambda invocation with its GB-seconds
// and log lines: a run every minute is 43,800 invocations a month, about 3 cents at rest
// (infra/cost-model.ts). So only what correctness needs runs every minute; housekeeping runs less.
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export const SCHEDULES = {
  // Housekeeping: the stream provisions and stops machines; the reconcile covers the stream's
  // rare losses, finds strays and instances gone missing, and retries transient provisioning
  // errors (once a minute old, shared/provisioner/deps.ts). Juju looks at transient errors every
  // minute; here a machine in a transient error (recorded after the provisioner's own attempts)
  // waits up to 5 minutes more, which saves ~35k invocations a month at rest.
  provisionerReconcile: Duration.minutes(5),
  // Correctness: the sweep frees leadership leases that have run out, so that the other units
  // claim at once — failover comes within a minute of a lost leader's lease running out
  // (shared/domain/leadership.ts) — and runs cleanups once their `notBefore` has passed.
  cleanupSweep: Duration.minutes(1),
  // Housekeeping: it reports what has been stuck for STUCK_AFTER_SECONDS (10 min by default) to a
  // human; a quarter of an hour more changes nothing for them. Its alarms compare runs, so their
  // period is this one (observability.ts).
  watchdog: Duration.minutes(15),
} as const;

export interface SchedulesProps {
  provisionerReconcile: lambda.IFunction;
  cleanupSweep: lambda.IFunction;
  watchdog: lambda.IFunction;
}

export class Schedules extends Construct {
  readonly rules: Record<keyof typeof SCHEDULES, events.Rule>;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    const rule = (name: keyof typeof SCHEDULES, description: string) =>
      new events.Rule(this, name.charAt(0).toUpperCase() + name.slice(1), {
        description,
        schedule: events.Schedule.rate(SCHEDULES[name]),
        // A missed run is covered by the next one: no retries to pile up behind a slow run.
        targets: [new targets.LambdaFunction(props[name], { retryAttempts: 0 })],
      });
    this.rules = {
      provisionerReconcile: rule('provisionerReconcile', "drover: the provisioner's full reconcile"),
      cleanupSweep: rule('cleanupSweep', 'drover: run due cleanups'),
      watchdog: rule('watchdog', 'drover: report entities Dying too long and provisioning errors'),
    };
  }
}
