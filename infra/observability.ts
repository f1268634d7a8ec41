// What an operator looks at: one dashboard, and alarms on what needs a human — entities stuck
// (the watchdog's EMF metrics, by this controller's dimension), a watchdog that stopped running
// (its heartbeat), stream consumers falling behind (iterator age), batches the stream mappings
// gave up on (the failure destination) and hints agents could not handle (the dead-letter queue),
// any function's errors or throttles, and the API's 5xx.
//
// Only when an alarm email is configured (`drover:alarmEmail`, infra/drover-app.ts). An alarm
// costs $0.10 a month and one that notifies no one helps no one; a dashboard costs $3 a month
// past an account's first three. Without an email the controller costs ≈ $0 at rest
// (docs/deploy-to-aws.md, "Cost"), and what is stuck is still in the watchdog's log group and
// `drover stuck`. Not one composite alarm either: it would cost $0.50 a month to tell no one.
import { Aws, Duration } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, type FunctionKey } from './functions.js';
import { SCHEDULES } from './schedules.js';
import { STUCK_ENTITIES_QUERY } from './log-queries.js';
import type { StreamConsumerName } from '../functions/stream-consumers.js';

/** The watchdog's metrics (functions/watchdog/handler.ts), dimension service=watchdog. */
export const WATCHDOG_METRICS = ['DyingTooLong', 'ProvisioningErrors'] as const;

const PERIOD = Duration.minutes(5);
/** The watchdog publishes one datapoint per run: its alarms compare runs, not empty periods. */
const WATCHDOG_PERIOD = SCHEDULES.watchdog;
/** A consumer this far behind the head of the stream is not keeping up. */
export const ITERATOR_AGE_ALARM = Duration.minutes(5);

export interface ObservabilityProps {
  controllerId: string;
  functions: Record<FunctionKey, lambda.IFunction>;
  consumers: readonly StreamConsumerName[];
  watchdogLogs: logs.ILogGroup;
  failureQueue: sqs.IQueue;
  hintDeadLetterQueue: sqs.IQueue;
  scheduledFailures: sqs.IQueue;
  httpApi: apigwv2.HttpApi;
  /** Alarms notify this address (an SNS topic with an email subscription). */
  alarmEmail: string;
}

/** The dashboard and the alarms; the stack adds it only when an alarm email is configured. */
export class Observability extends Construct {
  readonly dashboard: cw.Dashboard;
  readonly alarms: cw.Alarm[] = [];
  readonly alarmTopic: sns.Topic;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const watchdog = (name: (typeof WATCHDOG_METRICS)[number]) =>
      new cw.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        // The controller's own: another controller in this account and region publishes the same names.
        dimensionsMap: { service: 'watchdog', controller: props.controllerId },
        statistic: 'Maximum',
        period: WATCHDOG_PERIOD,
      });
    const depth = (queue: sqs.IQueue) => queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD });
    const iteratorAge = (key: StreamConsumerName) => props.functions[key].metric('IteratorAge', { statistic: 'Maximum', period: PERIOD });

    // TLS only, but not KMS-encrypted: CloudWatch alarms cannot publish to a topic under the
    // AWS-managed aws/sns key, a customer key costs $1 a month at rest, and alarm notifications
    // carry only alarm names and states.
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', { displayName: `drover ${props.controllerId} alarms`, enforceSSL: true });
    this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const alarm = (name: string, metric: cw.IMetric, threshold: number, description: string, evaluationPeriods = 1) => {
      const created = new cw.Alarm(this, name, {
        alarmDescription: `drover ${props.controllerId}: ${description}`,
        metric,
        threshold,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods,
        datapointsToAlarm: evaluationPeriods,
        // No data is good news: no stuck entities reported, no records to be behind on, an
        // empty queue that has not been touched.
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(new actions.SnsAction(this.alarmTopic));
      this.alarms.push(created);
      return created;
    };

    // Stuck entities: two consecutive watchdog runs reporting any (the watchdog already counts
    // only what has been Dying longer than STUCK_AFTER_SECONDS).
    alarm('DyingTooLongAlarm', watchdog('DyingTooLong'), 1, 'entities have been Dying too long (see `drover stuck`)', 2);
    alarm('ProvisioningErrorsAlarm', watchdog('ProvisioningErrors'), 1, 'machines are in provisioning error (see `drover status`)', 2);
    for (const key of props.consumers) {
      alarm(
        `${key.charAt(0).toUpperCase()}${key.slice(1)}IteratorAgeAlarm`,
        iteratorAge(key),
        ITERATOR_AGE_ALARM.toMilliseconds(),
        `the ${key} function is more than ${ITERATOR_AGE_ALARM.toMinutes()} minutes behind the table's stream`,
        2,
      );
    }
    alarm('StreamFailuresAlarm', depth(props.failureQueue), 1, 'a stream mapping gave up on a batch (see the stream failure queue)');
    alarm(
      'HintDeadLettersAlarm',
      depth(props.hintDeadLetterQueue),
      1,
      'an agent failed to handle hints repeatedly (see the hint dead-letter queue)',
    );

    alarm(
      'ScheduledFailuresAlarm',
      depth(props.scheduledFailures),
      1,
      'a scheduled run failed or was dropped as too old (see the scheduled failure queue and the function log group)',
    );

    const functions = Object.entries(props.functions) as [FunctionKey, lambda.IFunction][];
    // Any function failing or throttled: one alarm each, on the sum over every function (their
    // metrics are each function's own, by its name), naming the function on the dashboard.
    const sumOver = (label: string, metricOf: (fn: lambda.IFunction) => cw.Metric) =>
      new cw.MathExpression({
        expression: functions.map(([key]) => key).join(' + '),
        usingMetrics: Object.fromEntries(functions.map(([key, fn]) => [key, metricOf(fn)])),
        label,
        period: PERIOD,
      });
    alarm(
      'FunctionErrorsAlarm',
      sumOver('errors', (fn) => fn.metricErrors({ period: PERIOD, statistic: 'Sum' })),
      1,
      'a function failed (see "Function errors" on the dashboard, then its log group)',
    );
    alarm(
      'FunctionThrottlesAlarm',
      sumOver('throttles', (fn) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })),
      1,
      "a function was throttled (the account's concurrency quota, or its reserved concurrency)",
    );
    alarm(
      'ApiServerErrorsAlarm',
      props.httpApi.metricServerError({ period: PERIOD, statistic: 'Sum' }),
      1,
      'the API answered 5xx (see the api log group and the access log)',
    );
    // The heartbeat: a watchdog that no longer runs publishes nothing, which its alarms read as
    // good news. Lambda counts its invocations for free; none in two of its periods is an alarm,
    // and so is no data at all.
    const heartbeat = new cw.Alarm(this, 'WatchdogHeartbeatAlarm', {
      alarmDescription: `drover ${props.controllerId}: the watchdog has not run for ${2 * WATCHDOG_PERIOD.toMinutes()} minutes (see its schedule and log group)`,
      metric: props.functions.watchdog.metricInvocations({ period: WATCHDOG_PERIOD, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: cw.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      treatMissingData: cw.TreatMissingData.BREACHING,
    });
    heartbeat.addAlarmAction(new actions.SnsAction(this.alarmTopic));
    this.alarms.push(heartbeat);

    this.dashboard = new cw.Dashboard(this, 'Dashboard', {
      // Dashboard names are global to the account: the region keeps controllers apart.
      dashboardName: `drover-${props.controllerId}-${Aws.REGION}`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      // One row per entity (not per log line: the watchdog reports each on every run), with what
      // holds it and what to run, as `drover stuck` prints them.
      new cw.LogQueryWidget({
        title: 'Stuck entities: what holds each, and what to run (watchdog)',
        logGroupNames: [props.watchdogLogs.logGroupName],
        view: cw.LogQueryVisualizationType.TABLE,
        queryLines: STUCK_ENTITIES_QUERY,
        width: 24,
        height: 8,
      }),
    );
    this.dashboard.addWidgets(
      new cw.GraphWidget({
        title: 'Dying too long',
        left: [watchdog('DyingTooLong')],
        leftAnnotations: [{ value: 1, label: 'alarm' }],
        width: 12,
      }),
      new cw.GraphWidget({
        title: 'Provisioning errors',
        left: [watchdog('ProvisioningErrors')],
        leftAnnotations: [{ value: 1, label: 'alarm' }],
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new cw.GraphWidget({
        title: 'Stream iterator age (ms)',
        left: props.consumers.map((key) => iteratorAge(key).with({ label: key })),
        leftAnnotations: [{ value: ITERATOR_AGE_ALARM.toMilliseconds(), label: 'alarm' }],
        width: 12,
      }),
      new cw.GraphWidget({
        title: 'Failure destination and hint dead letters (messages)',
        left: [
          depth(props.failureQueue).with({ label: 'stream failures' }),
          depth(props.hintDeadLetterQueue).with({ label: 'hint dead letters' }),
          depth(props.scheduledFailures).with({ label: 'scheduled failures' }),
        ],
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new cw.GraphWidget({
        title: 'Function errors',
        left: functions.map(([key, fn]) => fn.metricErrors({ period: PERIOD, label: key })),
        width: 12,
      }),
      new cw.GraphWidget({
        title: 'Function duration p99 (ms)',
        left: functions.map(([key, fn]) => fn.metricDuration({ period: PERIOD, statistic: 'p99', label: key })),
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new cw.GraphWidget({
        title: 'API requests and errors',
        left: [
          props.httpApi.metricCount({ period: PERIOD }),
          props.httpApi.metricClientError({ period: PERIOD }),
          props.httpApi.metricServerError({ period: PERIOD }),
        ],
        width: 12,
      }),
      new cw.GraphWidget({
        title: 'API latency p99 (ms)',
        left: [props.httpApi.metricLatency({ period: PERIOD, statistic: 'p99' })],
        width: 12,
      }),
    );
  }
}
