// The Lambda functions: one per entry point in functions/, bundled by the local esbuild (never
// Docker), each with a role of its own that starts empty — no AWS managed policy — and is given
// only what that function uses, by the construct that owns the resource (state-table.ts,
// charm-store.ts, machines.ts, stream-consumers.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { SendOnlyQueueDestination } from './failure-queues.js';
import { SCHEDULES } from './schedules.js';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionEnvironment, VariableName } from '../functions/environment.js';

/** The repository root: entries, the lock file and tsconfig.json are found from here. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const RUNTIME = lambda.Runtime.NODEJS_22_X;
export const ARCHITECTURE = lambda.Architecture.ARM_64;

/** The namespace of every drover metric (EMF through Powertools Metrics). */
export const METRICS_NAMESPACE = 'drover';

export type FunctionKey = 'api' | 'provisioner' | 'provisionerReconcile' | 'changes' | 'cleanupSweep' | 'watchdog' | 'teardown';

interface FunctionSpec {
  /** The entry module, relative to the repository root. */
  entry: string;
  /** The exported function Lambda calls. */
  handler: string;
  /** Powertools service name (the `service` dimension and log field). */
  service: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  /**
   * A scheduled run: at most one at a time, by a lease in the table (functions/single-run.ts), so
   * a slow run is never overlapped by the next; and no asynchronous retries piling up behind it
   * (the next run comes anyway). Not by reserved concurrency: an account whose concurrency quota
   * is 10 or 50 (many new ones) refuses any reservation ("below its minimum value"), and the
   * deploy fails. Reserving is an opt-in setting (DroverFunctionsProps).
   */
  scheduled?: true;
}

// The provisioner's entry serves two functions (a stream handler and a scheduled one), as cleanup
// work has a stream step (in `changes`) and a scheduled sweep: separate functions so a long
// scheduled run never holds up the stream, and each gets its own timeout and metrics.
export const FUNCTION_SPECS: Record<FunctionKey, FunctionSpec> = {
  api: {
    entry: 'functions/api/handler.ts',
    handler: 'handler',
    service: 'api',
    description: 'drover API: user routes (IAM, users) and agent routes (IAM, the agent role)',
    memorySize: 512,
    // API Gateway HTTP APIs give up after 30 s.
    timeout: Duration.seconds(29),
  },
  provisioner: {
    entry: 'functions/provisioner/handler.ts',
    handler: 'handler',
    service: 'provisioner',
    description: 'drover provisioner: machine items on the stream -> EC2 instances and machine queues',
    memorySize: 512,
    // A start is retried in-process (Juju: 10 attempts, 10 s apart) before an error is recorded.
    timeout: Duration.minutes(5),
  },
  provisionerReconcile: {
    entry: 'functions/provisioner/handler.ts',
    handler: 'reconcile',
    service: 'provisioner',
    description: 'drover provisioner: periodic full reconcile (lost records, transient errors, stray instances)',
    // It waits on DynamoDB and EC2 rather than computing, and runs on a schedule even at rest:
    // 256 MB halves the GB-seconds of every idle run (infra/cost-model.ts).
    memorySize: 256,
    timeout: Duration.minutes(5),
    scheduled: true,
  },
  changes: {
    entry: 'functions/changes/handler.ts',
    handler: 'handler',
    service: 'changes',
    description: 'drover changes: stream -> hints to the machines whose view changed, and the next batch of each cleanup',
    memorySize: 256,
    timeout: Duration.minutes(1),
  },
  cleanupSweep: {
    entry: 'functions/cleanup/handler.ts',
    handler: 'sweepHandler',
    service: 'cleanup',
    description: 'drover cleanup: periodic sweep of due cleanups and of lost stream records',
    memorySize: 256,
    timeout: Duration.minutes(5),
    scheduled: true,
  },
  watchdog: {
    entry: 'functions/watchdog/handler.ts',
    handler: 'handler',
    service: 'watchdog',
    description: 'drover watchdog: entities Dying too long and provisioning errors -> CloudWatch metrics',
    memorySize: 256,
    timeout: Duration.minutes(1),
    scheduled: true,
  },
  teardown: {
    entry: 'functions/teardown/handler.ts',
    handler: 'handler',
    service: 'teardown',
    description: "drover tear-down: on stack deletion, terminates the controller's instances and deletes its machine queues",
    memorySize: 256,
    // Lambda's longest: instances take a few minutes to terminate, and a stack waits for this.
    timeout: Duration.minutes(15),
  },
};

// ESM output needs `require` for the few CommonJS dependencies that require Node built-ins.
const REQUIRE_SHIM =
  "import { createRequire as __droverCreateRequire } from 'node:module'; const require = __droverCreateRequire(import.meta.url);";

export interface DroverFunctionsProps {
  tableName: string;
  /** Every function's own environment, beyond the common one (TABLE_NAME, Powertools). */
  environment: Partial<Record<FunctionKey, FunctionEnvironment>>;
  /**
   * Reserved concurrency for each scheduled function (`-c drover:scheduledReservedConcurrency=1`),
   * for accounts whose quota allows it; absent: none, the lease alone keeps runs apart.
   */
  scheduledReservedConcurrency?: number;
}

export class DroverFunctions extends Construct {
  readonly functions: Record<FunctionKey, NodejsFunction>;
  readonly logGroups: Record<FunctionKey, logs.LogGroup>;
  /** Each function's own role: grants (and their cdk-nag acknowledgements) go here. */
  readonly roles: Record<FunctionKey, iam.Role>;

  /** Scheduled runs that failed or were dropped as too old (their asynchronous failure destination). */
  readonly scheduledFailures: sqs.Queue;

  constructor(scope: Construct, id: string, props: DroverFunctionsProps) {
    super(scope, id);
    this.scheduledFailures = new sqs.Queue(this, 'ScheduledFailures', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const functions: Partial<Record<FunctionKey, NodejsFunction>> = {};
    const logGroups: Partial<Record<FunctionKey, logs.LogGroup>> = {};
    const roles: Partial<Record<FunctionKey, iam.Role>> = {};
    for (const [key, spec] of Object.entries(FUNCTION_SPECS) as [FunctionKey, FunctionSpec][]) {
      const name = key.charAt(0).toUpperCase() + key.slice(1);
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      // A role of its own, without AWSLambdaBasicExecutionRole: logging is granted on this
      // function's log group only.
      const role = new iam.Role(this, `${name}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `drover ${key} function`,
      });
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({ sid: 'Logs', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }),
      );
      functions[key] = new NodejsFunction(this, name, {
        entry: join(REPO_ROOT, spec.entry),
        handler: spec.handler,
        projectRoot: REPO_ROOT,
        depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
        runtime: RUNTIME,
        architecture: ARCHITECTURE,
        memorySize: spec.memorySize,
        timeout: spec.timeout,
        // A run that waited longer than its interval is superseded by the next: dropped, not run
        // late (Lambda keeps an event 6 hours by default), and noted on the failure queue.
        ...(spec.scheduled
          ? {
              retryAttempts: 0,
              maxEventAge: SCHEDULES[key as keyof typeof SCHEDULES],
              onFailure: new SendOnlyQueueDestination(this.scheduledFailures),
            }
          : {}),
        ...(spec.scheduled && props.scheduledReservedConcurrency !== undefined
          ? { reservedConcurrentExecutions: props.scheduledReservedConcurrency }
          : {}),
        description: spec.description,
        role,
        logGroup,
        environment: environmentRecord({
          TABLE_NAME: props.tableName,
          POWERTOOLS_SERVICE_NAME: spec.service,
          POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
          POWERTOOLS_LOG_LEVEL: 'INFO',
          NODE_OPTIONS: '--enable-source-maps',
          ...props.environment[key],
        }),
        bundling: {
          // The local esbuild (a devDependency) bundles: synthesis never needs Docker.
          forceDockerBundling: false,
          format: OutputFormat.ESM,
          target: 'node22',
          mainFields: ['module', 'main'],
          banner: REQUIRE_SHIM,
          minify: true,
          sourceMap: true,
          // Maps give stack traces their file and line; the sources themselves need not ship.
          sourcesContent: false,
          // Everything is bundled, the AWS SDK too: the functions run the @aws-sdk/* versions
          // package-lock.json pins and the tests ran, not whichever the Node 22 runtime ships
          // that month. It costs about half a megabyte of bundle per function (the api function's
          // is ~1.1 MB, test/infra/stack.test.ts keeps each under 1.5 MB).
          bundleAwsSDK: true,
          logLevel: LogLevel.WARNING,
        },
      });
      logGroups[key] = logGroup;
      roles[key] = role;
    }
    this.functions = functions as Record<FunctionKey, NodejsFunction>;
    this.logGroups = logGroups as Record<FunctionKey, logs.LogGroup>;
    this.roles = roles as Record<FunctionKey, iam.Role>;
  }

  /**
   * Tells a function its own log group's name (in `variable`) and lets it search that group —
   * the api function reads the agents' records it logged back for debug-log
   * (shared/logs/cloudwatch-log-reader.ts) — and no other group.
   */
  searchOwnLogs(key: FunctionKey, variable: VariableName): void {
    const logGroup = this.logGroups[key];
    setEnvironment(this.functions[key], { [variable]: logGroup.logGroupName });
    this.roles[key].addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'SearchOwnLogs', actions: ['logs:FilterLogEvents'], resources: [logGroup.logGroupArn] }),
    );
  }
}

/** Adds variables to a function's environment: names from functions/environment.ts only. */
export function setEnvironment(fn: lambda.Function, variables: FunctionEnvironment): void {
  for (const [name, value] of Object.entries(environmentRecord(variables))) fn.addEnvironment(name, value);
}

function environmentRecord(variables: FunctionEnvironment): Record<string, string> {
  return Object.fromEntries(Object.entries(variables).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
