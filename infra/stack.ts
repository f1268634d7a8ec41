// One drover controller: state, functions, stream consumers, API, charm store, machines,
// schedules and observability, wired together. Environment-agnostic (no account, no region, no
// lookups): `cdk synth` needs no credentials and no network.
import { join } from 'node:path';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { AGENT_ENTRY, AgentBundle } from './agent-bundle.js';
import { DroverApi } from './api.js';
import { CharmStore } from './charm-store.js';
import { DroverFunctions, REPO_ROOT, setEnvironment, type FunctionKey } from './functions.js';
import { Machines } from './machines.js';
import { LogQueries } from './log-queries.js';
import { Observability } from './observability.js';
import { Schedules } from './schedules.js';
import { StateTable, type ExistingTable } from './state-table.js';
import { TearDown } from './teardown.js';
import { StreamConsumers } from './stream-consumers.js';
import type { FunctionEnvironment } from '../functions/environment.js';
import { STREAM_CONSUMERS } from '../functions/stream-consumers.js';
import { DEFAULT_STUCK_AFTER_SECONDS } from '#shared/domain/stuck.js';

/** What a log group holds besides the function's own lines. */
const LOG_GROUP_NOTES: Partial<Record<FunctionKey, string>> = {
  api: ": also the agents' records (debug-log, field debugLog)",
  watchdog: ': one "stuck" line per stuck entity per run, with blockedBy and remedy',
};

export interface DroverStackProps extends StackProps {
  /** Names queues (`drover-<id>-...`) and tags instances; 1–40 letters, digits, hyphens. */
  controllerId: string;
  /** Keep the table and the charm bucket when the stack is deleted (default true). */
  retainState?: boolean;
  /** Dying for longer than this is "stuck" (default 600 s). */
  stuckAfterSeconds?: number;
  /** A table restored to a point in time, used instead of the stack's own (state-table.ts). */
  existingState?: ExistingTable;
  /** Encrypt the state table with a customer-managed KMS key (`drover:stateTableKms=true`). */
  stateTableKms?: boolean;
  /** Where alarms send email; absent: no alarms and no dashboard (observability.ts). */
  alarmEmail?: string;
  /** Reserved concurrency of each scheduled function; absent: none (infra/functions.ts says why). */
  scheduledReservedConcurrency?: number;
  /** The machine agent's entry module (default agent/main.ts); tests give a stand-in. */
  agentEntry?: string;
}

export class DroverStack extends Stack {
  readonly controllerId: string;
  readonly state: StateTable;
  readonly functions: DroverFunctions;
  readonly consumers: StreamConsumers;
  readonly api: DroverApi;
  readonly charms: CharmStore;
  readonly machines: Machines;
  readonly agentBundle: AgentBundle;
  readonly schedules: Schedules;
  /** Only with an alarm email: alarms and a dashboard cost money at rest (observability.ts). */
  readonly observability?: Observability;

  constructor(scope: Construct, id: string, props: DroverStackProps) {
    super(scope, id, { description: `drover controller ${props.controllerId}: a Juju-style controller, serverless`, ...props });
    const { controllerId } = props;
    this.controllerId = controllerId;
    const removalPolicy = props.retainState === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const stuckAfterSeconds = String(props.stuckAfterSeconds ?? DEFAULT_STUCK_AFTER_SECONDS);

    this.state = new StateTable(this, 'State', {
      removalPolicy,
      ...(props.existingState ? { existing: props.existingState } : {}),
      ...(props.stateTableKms ? { customerManagedKey: true } : {}),
    });
    this.charms = new CharmStore(this, 'Charms', { removalPolicy });
    this.machines = new Machines(this, 'Machines', { controllerId });

    this.agentBundle = new AgentBundle(this, 'AgentBundle', { entry: props.agentEntry ?? join(REPO_ROOT, AGENT_ENTRY) });

    const environment: Partial<Record<FunctionKey, FunctionEnvironment>> = {
      api: { CHARM_BUCKET: this.charms.bucket.bucketName, CONTROLLER_ID: controllerId, STUCK_AFTER_SECONDS: stuckAfterSeconds },
      changes: { CONTROLLER_ID: controllerId },
      watchdog: { STUCK_AFTER_SECONDS: stuckAfterSeconds, CONTROLLER_ID: controllerId },
    };
    const provisionerEnvironment: FunctionEnvironment = {
      CONTROLLER_ID: controllerId,
      ...this.machines.provisionerEnvironment(),
      AGENT_BUNDLE_SHA256: this.agentBundle.sha256,
      // The asset bucket is private: instances read the bundle with their role (s3-get-script.ts).
      AGENT_BUNDLE_BUCKET: this.agentBundle.asset.s3BucketName,
      AGENT_BUNDLE_KEY: this.agentBundle.asset.s3ObjectKey,
    };
    environment.provisioner = provisionerEnvironment;
    environment.provisionerReconcile = provisionerEnvironment;
    environment.teardown = this.machines.tearDownEnvironment();

    this.functions = new DroverFunctions(this, 'Functions', {
      tableName: this.state.table.tableName,
      environment,
      ...(props.scheduledReservedConcurrency !== undefined ? { scheduledReservedConcurrency: props.scheduledReservedConcurrency } : {}),
    });
    const fn = this.functions.functions;
    const roles = this.functions.roles;

    this.api = new DroverApi(this, 'Api', { controllerId, handler: fn.api, agentRole: this.machines.agentRole });
    // The address agents are given at provisioning.
    for (const key of ['provisioner', 'provisionerReconcile'] as const) setEnvironment(fn[key], { API_URL: this.api.url });

    // Least privilege, function by function: each grant names the few actions the code calls.
    this.state.grant(roles.api, 'read-write');
    this.state.grant(roles.provisioner, 'read-write');
    this.state.grant(roles.provisionerReconcile, 'read-write');
    this.state.grant(roles.changes, 'read-write-batch');
    this.state.grant(roles.cleanupSweep, 'read-write-batch');
    this.state.grant(roles.watchdog, 'list');
    // The watchdog writes nothing but its run lease (functions/single-run.ts); the other
    // scheduled functions' read-write grants cover theirs.
    this.state.grantRunLease(roles.watchdog);
    this.charms.grantReadWrite(roles.api);
    // debug-log: the agents' records the api function wrote to its own log group, read back there.
    this.functions.searchOwnLogs('api', 'DEBUG_LOG_GROUP');
    for (const key of ['provisioner', 'provisionerReconcile'] as const) this.machines.grantProvisioner(roles[key]);
    // Instances download the bundle with their own role at first boot (shared/provider/ec2/s3-get-script.ts).
    this.agentBundle.grantRead(this.machines.agentRole);
    this.machines.grantFirewall(roles.provisionerReconcile);
    this.machines.grantHints(roles.changes);
    this.machines.grantTearDown(roles.teardown);

    const consumerKeys = STREAM_CONSUMERS.map((c) => c.name);
    this.consumers = new StreamConsumers(this, 'StreamConsumers', {
      table: this.state.table,
      functions: { provisioner: fn.provisioner, changes: fn.changes },
    });

    this.schedules = new Schedules(this, 'Schedules', {
      provisionerReconcile: fn.provisionerReconcile,
      cleanupSweep: fn.cleanupSweep,
      watchdog: fn.watchdog,
    });

    // Deleted before the machines' network and after whatever could start an instance.
    new TearDown(this, 'TearDown', {
      handler: fn.teardown,
      after: this.machines,
      // The stream consumers (their mappings are made in their scope) and the scheduled
      // reconcile: the provisioner starts instances, the changes function re-creates missing queues.
      before: [this.consumers, this.schedules, fn.provisioner, fn.provisionerReconcile, fn.changes],
    });

    // Saved Logs Insights queries: free, so with or without an alarm email.
    new LogQueries(this, 'LogQueries', {
      controllerId,
      watchdogLogs: this.functions.logGroups.watchdog,
      apiLogs: this.functions.logGroups.api,
      accessLogs: this.api.accessLogs,
    });

    if (props.alarmEmail) {
      this.observability = new Observability(this, 'Observability', {
        controllerId,
        functions: fn,
        consumers: consumerKeys,
        watchdogLogs: this.functions.logGroups.watchdog,
        failureQueue: this.consumers.failureQueue,
        hintDeadLetterQueue: this.machines.deadLetterQueue,
        scheduledFailures: this.functions.scheduledFailures,
        httpApi: this.api.httpApi,
        alarmEmail: props.alarmEmail,
      });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'The drover API' });
    new CfnOutput(this, 'Region', { value: this.region, description: 'The region of this controller' });
    new CfnOutput(this, 'RegisterCommand', {
      value: `npx drover register ${this.api.url} ${controllerId} --region ${this.region}`,
      description: 'Run this to add this controller to the drover CLI (requests are signed with your AWS credentials)',
    });
    new CfnOutput(this, 'UserPolicyArn', {
      value: this.api.userPolicy.managedPolicyArn,
      description: 'Attach to the IAM users or roles that may use this controller',
    });
    // CloudFormation names the log groups: the outputs say which is which.
    for (const key of Object.keys(fn) as FunctionKey[]) {
      new CfnOutput(this, `${key.charAt(0).toUpperCase()}${key.slice(1)}LogGroup`, {
        value: this.functions.logGroups[key].logGroupName,
        description: `The ${key} function's log group${LOG_GROUP_NOTES[key] ?? ''}`,
      });
    }
    new CfnOutput(this, 'ApiAccessLogGroup', {
      value: this.api.accessLogs.logGroupName,
      description: "The API's access log: every request, its caller, route and status",
    });
    new CfnOutput(this, 'TableName', { value: this.state.table.tableName, description: 'The state table (retained on delete by default)' });
    new CfnOutput(this, 'CharmBucket', {
      value: this.charms.bucket.bucketName,
      description: 'The charm store (retained on delete by default)',
    });
  }
}
