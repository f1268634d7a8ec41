// The periodic work that covers what the stream cannot: the watchdog (what is stuck), the
// provisioner's full reconcile (lost stream records, transient provisioning errors, stray
// instances) and the cleanup sweep (cleanups whose `notBefore` has passed, lost records, run-out
// leadership leases).
// EventBridge scheduled rules: free, and each run is one short Lambda invocation, so the schedule
// costs next to nothing at rest (~96k invocations a month in all, inside Lambda's free tier).
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export const SCHEDULES = {
  // Juju's provisioner looks again at machines with transient errors every minute; the
  // provisioner retries a transient error once it is a minute old (shared/provisioner/deps.ts).
  provisionerReconcile: Duration.minutes(1),
  // The sweep also frees leadership leases that have run out, so that the other units claim at
  // once: failover comes within a minute of a lost leader's lease running out
  // (shared/domain/leadership.ts).
  cleanupSweep: Duration.minutes(1),
  // The watchdog's metrics are 5-minute datapoints the alarms compare (observability.ts).
  watchdog: Duration.minutes(5),
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
