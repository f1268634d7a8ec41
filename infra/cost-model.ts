// What a controller costs when nobody uses it, and what one idle machine agent adds, computed
// from the synthesized CloudFormation template (test/infra/cost.test.ts prints it, and
// docs/deploy-to-aws.md, "Cost", shows it). Every resource in the template is either priced here,
// known to be free at rest, or reported as unpriced, so a new kind of resource cannot slip in
// unnoticed. Prices are us-east-1 list prices with no free tier: Lambda's, SQS's and CloudWatch's
// always-free allowances are per account, and a controller should be cheap in a busy account too.
import { presenceWriteIntervalMs } from '#shared/domain/presence.js';
import { FUNCTION_SPECS, type FunctionKey } from './functions.js';
import {
  GP3_BASELINE_IOPS,
  GP3_BASELINE_THROUGHPUT_MIB,
  type EbsVolumeParameters,
  type EbsVolumeType,
} from '#shared/provider/ec2/ebs-pool.js';

type Json = Record<string, any>;

export interface Price {
  usd: number;
  unit: string;
  /** The AWS pricing page the price is read from. */
  source: string;
}

/** When the prices below were written down from their pages (re-check them there). */
export const PRICES_AS_OF = '2026-11-26';

const HOURS_PER_MONTH = 730;
const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;
const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;
const MILLION = 1_000_000;
const GB = 1024 ** 3;

const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';
const LAMBDA = 'https://aws.amazon.com/lambda/pricing/';
const DYNAMODB = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const VPC = 'https://aws.amazon.com/vpc/pricing/';
const EBS = 'https://aws.amazon.com/ebs/pricing/';

/** us-east-1 list prices, the one place they are written. */
export const PRICES = {
  alarm: { usd: 0.1, unit: 'standard-resolution alarm, month', source: CLOUDWATCH },
  highResolutionAlarm: { usd: 0.3, unit: 'high-resolution alarm, month', source: CLOUDWATCH },
  compositeAlarm: { usd: 0.5, unit: 'composite alarm, month', source: CLOUDWATCH },
  dashboard: { usd: 3, unit: 'dashboard, month (an account’s first 3 are free)', source: CLOUDWATCH },
  customMetric: { usd: 0.3, unit: 'custom metric, month', source: CLOUDWATCH },
  logIngestion: { usd: 0.5, unit: 'GB of logs ingested', source: CLOUDWATCH },
  logStorage: { usd: 0.03, unit: 'GB-month of logs stored', source: CLOUDWATCH },
  secret: { usd: 0.4, unit: 'secret, month', source: 'https://aws.amazon.com/secrets-manager/pricing/' },
  kmsKey: { usd: 1, unit: 'customer managed key, month', source: 'https://aws.amazon.com/kms/pricing/' },
  lambdaRequest: { usd: 0.2, unit: 'million invocations', source: LAMBDA },
  lambdaArmGbSecond: { usd: 0.0000133334, unit: 'GB-second, arm64', source: LAMBDA },
  lambdaX86GbSecond: { usd: 0.0000166667, unit: 'GB-second, x86_64', source: LAMBDA },
  httpApiRequest: { usd: 1, unit: 'million HTTP API requests', source: 'https://aws.amazon.com/api-gateway/pricing/' },
  /** Session Manager on EC2 instances (drover ssh): "no additional charge" for sessions to EC2 instances. */
  sessionManager: { usd: 0, unit: 'Session Manager session to an EC2 instance', source: 'https://aws.amazon.com/systems-manager/pricing/' },
  sqsRequest: { usd: 0.4, unit: 'million standard queue requests', source: 'https://aws.amazon.com/sqs/pricing/' },
  dynamodbWrite: { usd: 0.625, unit: 'million on-demand write request units', source: DYNAMODB },
  dynamodbRead: { usd: 0.125, unit: 'million on-demand read request units', source: DYNAMODB },
  dynamodbStorage: { usd: 0.25, unit: 'GB-month of table storage', source: DYNAMODB },
  pointInTimeRecovery: { usd: 0.2, unit: 'GB-month of table size, with point-in-time recovery', source: DYNAMODB },
  dynamodbProvisionedWrite: {
    usd: 0.00065,
    unit: 'provisioned write capacity unit, hour',
    source: 'https://aws.amazon.com/dynamodb/pricing/provisioned/',
  },
  dynamodbProvisionedRead: {
    usd: 0.00013,
    unit: 'provisioned read capacity unit, hour',
    source: 'https://aws.amazon.com/dynamodb/pricing/provisioned/',
  },
  natGateway: { usd: 0.045, unit: 'NAT gateway, hour', source: VPC },
  interfaceEndpoint: { usd: 0.01, unit: 'interface VPC endpoint, per AZ, hour', source: 'https://aws.amazon.com/privatelink/pricing/' },
  publicIpv4: { usd: 0.005, unit: 'public IPv4 address, hour', source: VPC },
  // EBS bills a volume's provisioned size (in GiB, which the page calls GB) whether or not it is attached.
  ebsGp3: { usd: 0.08, unit: 'GB-month of a gp3 volume', source: EBS },
  ebsGp3Iops: { usd: 0.005, unit: 'gp3 IOPS-month above the 3,000 every volume has', source: EBS },
  ebsGp3Throughput: { usd: 0.04, unit: 'gp3 MB/s-month above the 125 every volume has', source: EBS },
  ebsGp2: { usd: 0.1, unit: 'GB-month of a gp2 volume', source: EBS },
  ebsIo1: { usd: 0.125, unit: 'GB-month of an io1 volume', source: EBS },
  ebsIo1Iops: { usd: 0.065, unit: 'io1 provisioned IOPS-month', source: EBS },
  ebsIo2: { usd: 0.125, unit: 'GB-month of an io2 volume', source: EBS },
  ebsIo2Iops: { usd: 0.065, unit: 'io2 provisioned IOPS-month, up to 32,000', source: EBS },
  ebsSt1: { usd: 0.045, unit: 'GB-month of an st1 volume', source: EBS },
  ebsSc1: { usd: 0.015, unit: 'GB-month of an sc1 volume', source: EBS },
  ebsStandard: { usd: 0.05, unit: 'GB-month of a magnetic (standard) volume, besides its I/O requests', source: EBS },
} as const satisfies Record<string, Price>;

/**
 * What the model assumes and cannot read from the template. Durations are billed per millisecond;
 * these are a warm container doing an idle run's one or two small requests.
 */
export const ASSUMPTIONS = {
  /** An idle scheduled run, by function; the reconcile also lists the controller's instances (EC2). */
  idleRunMs: { provisionerReconcile: 300, cleanupSweep: 100, watchdog: 100 } as Partial<Record<FunctionKey, number>>,
  /**
   * Each scheduled run takes and releases its job's lease (functions/single-run.ts): two
   * conditional writes of a small item, one write request unit each.
   */
  runLeaseWriteUnits: 2,
  /** Any other function's idle run. */
  defaultIdleRunMs: 100,
  /** An idle agent's request to the API function (a view read or a heartbeat). */
  agentRequestMs: 50,
  /** The START, END and REPORT lines Lambda writes for every invocation; an idle run logs nothing else. */
  logBytesPerInvocation: 400,
  /**
   * Each agent request records presence (one write: an idle agent's requests are farther apart
   * than its write interval), reads the machine to check who is calling, and a resync reads the
   * machine's view: two small reads.
   */
  agentRequestWriteUnits: 1,
  agentRequestReadUnits: 2,
  /** The agent's jitter: a resync every resync × 0.8–1.2 (agent/machine/machine-agent.ts). */
  resyncJitter: [0.8, 1.2],
  /** A heartbeat heartbeat × 1–1.2 after the agent's last request (agent/machine/heartbeat.ts). */
  heartbeatJitter: [1, 1.2],
  /** One line of the API stage's access log (a JSON object of 11 fields). */
  accessLogBytesPerRequest: 450,
  /** What an empty table holds: DynamoDB bills storage and PITR by size, so ≈ 0. */
  emptyTableBytes: 0,
} as const;

/** Resources that cost nothing while nobody uses them (pay per request, or free). */
const FREE_AT_REST = new Set([
  'AWS::IAM::Role',
  'AWS::IAM::Policy',
  'AWS::IAM::ManagedPolicy',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
  // Settings of asynchronous invocation (retries, event age): no charge of their own.
  'AWS::Lambda::EventInvokeConfig',
  // A DynamoDB stream's records are free to Lambda triggers (SQS sources are not: see below).
  'AWS::Lambda::EventSourceMapping',
  'AWS::Logs::LogGroup',
  // Saved Logs Insights queries are free; running one bills the data it scans, as any query.
  'AWS::Logs::QueryDefinition',
  'AWS::SQS::Queue',
  'AWS::SQS::QueuePolicy',
  'AWS::SNS::Topic',
  'AWS::SNS::TopicPolicy',
  'AWS::SNS::Subscription',
  'AWS::S3::Bucket',
  'AWS::S3::BucketPolicy',
  'AWS::ApiGatewayV2::Api',
  'AWS::ApiGatewayV2::Stage',
  'AWS::ApiGatewayV2::Route',
  'AWS::ApiGatewayV2::Integration',
  // Scheduled rules are free; the invocations they cause are counted below.
  'AWS::Events::Rule',
  'AWS::EC2::VPC',
  'AWS::EC2::Subnet',
  'AWS::EC2::InternetGateway',
  'AWS::EC2::VPCGatewayAttachment',
  'AWS::EC2::RouteTable',
  'AWS::EC2::SubnetRouteTableAssociation',
  'AWS::EC2::Route',
  'AWS::EC2::SecurityGroup',
  'AWS::EC2::SecurityGroupIngress',
  'AWS::EC2::SecurityGroupEgress',
  'AWS::EC2::LaunchTemplate',
  'AWS::IAM::InstanceProfile',
  'AWS::CDK::Metadata',
]);

export interface CostLine {
  item: string;
  /** How it is computed, e.g. "43,800 runs × (…)". */
  basis: string;
  usdPerMonth: number;
}

export interface CostAtRest {
  lines: CostLine[];
  usdPerMonth: number;
  /** Resource types neither priced nor known to be free: the model must learn them. */
  unpriced: string[];
}

const ofType = (resources: Record<string, Json>, type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** `rate(5 minutes)` → runs a month; `cron(...)` is not used by drover and is refused. */
export function runsPerMonth(expression: string): number {
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!rate) throw new Error(`cost model: cannot count the runs of schedule "${expression}"; use rate(...)`);
  const seconds = { minute: 60, hour: 3600, day: 86400 }[rate[2]!.replace(/s$/, '') as 'minute' | 'hour' | 'day'];
  return SECONDS_PER_MONTH / (Number(rate[1]) * seconds);
}

/** The drover function a template function is (by its description), if any. */
function functionKeyOf(fn: Json): FunctionKey | undefined {
  const entry = Object.entries(FUNCTION_SPECS).find(([, spec]) => spec.description === fn.Properties.Description);
  return entry?.[0] as FunctionKey | undefined;
}

/** What a log line costs: ingested, then stored for its group's retention. */
function logCost(resources: Record<string, Json>, logGroupId: string | undefined, bytes: number, owner: string): number {
  const retentionDays = logGroupId ? (resources[logGroupId]?.Properties.RetentionInDays as number | undefined) : undefined;
  if (retentionDays === undefined) throw new Error(`cost model: ${owner} logs to a group without retention: its storage grows forever`);
  return (bytes / GB) * (PRICES.logIngestion.usd + PRICES.logStorage.usd * (retentionDays / DAYS_PER_MONTH));
}

/**
 * What one invocation of a function costs: the request, its GB-seconds, and its log lines —
 * ingested, then stored for the log group's retention.
 */
export function invocationCost(resources: Record<string, Json>, fn: Json, durationMs: number): { usd: number; basis: string } {
  const memoryMb = Number(fn.Properties.MemorySize ?? 128);
  const arm = (fn.Properties.Architectures ?? ['x86_64']).includes('arm64');
  const gbSecondPrice = arm ? PRICES.lambdaArmGbSecond.usd : PRICES.lambdaX86GbSecond.usd;
  const logGroupId = fn.Properties.LoggingConfig?.LogGroup?.Ref as string | undefined;
  const retentionDays = logGroupId ? (resources[logGroupId]?.Properties.RetentionInDays as number | undefined) : undefined;
  const usd =
    PRICES.lambdaRequest.usd / MILLION +
    (memoryMb / 1024) * (durationMs / 1000) * gbSecondPrice +
    logCost(resources, logGroupId, ASSUMPTIONS.logBytesPerInvocation, String(fn.Properties.Description));
  return { usd, basis: `${memoryMb} MB × ${durationMs} ms, ${ASSUMPTIONS.logBytesPerInvocation} B of logs kept ${retentionDays} days` };
}

/**
 * The month's cost of the stack with no models and no machines. `customMetricsAtRest`: how many
 * custom metrics the code publishes with nothing happening (they are not in the template).
 */
/** The metrics an alarm reads: one, or each metric of its metric math. */
export function alarmMetrics(alarm: Json): number {
  const metrics = alarm.Properties.Metrics as Json[] | undefined;
  return metrics ? metrics.filter((m) => m.MetricStat).length : 1;
}

export function costAtRest(template: Json, options: { customMetricsAtRest: number }): CostAtRest {
  const resources = template.Resources as Record<string, Json>;
  const lines: CostLine[] = [];
  const priced = new Set<string>();
  const add = (type: string, item: string, basis: string, usdPerMonth: number) => {
    priced.add(type);
    lines.push({ item, basis, usdPerMonth });
  };

  const alarms = ofType(resources, 'AWS::CloudWatch::Alarm');
  const highResolution = alarms.filter(([, a]) => Number(a.Properties.Period ?? 60) < 60).length;
  // CloudWatch bills an alarm on metric math per metric it reads.
  const standardMetrics = alarms
    .filter(([, a]) => Number(a.Properties.Period ?? 60) >= 60)
    .reduce((sum, [, a]) => sum + alarmMetrics(a), 0);
  add(
    'AWS::CloudWatch::Alarm',
    'CloudWatch alarms (by the metrics they read)',
    `${standardMetrics} × $${PRICES.alarm.usd}`,
    standardMetrics * PRICES.alarm.usd,
  );
  if (highResolution)
    add(
      'AWS::CloudWatch::Alarm',
      'High-resolution alarms',
      `${highResolution} × $${PRICES.highResolutionAlarm.usd}`,
      highResolution * PRICES.highResolutionAlarm.usd,
    );
  const composite = ofType(resources, 'AWS::CloudWatch::CompositeAlarm').length;
  add(
    'AWS::CloudWatch::CompositeAlarm',
    'Composite alarms',
    `${composite} × $${PRICES.compositeAlarm.usd}`,
    composite * PRICES.compositeAlarm.usd,
  );
  const dashboards = ofType(resources, 'AWS::CloudWatch::Dashboard').length;
  add('AWS::CloudWatch::Dashboard', 'CloudWatch dashboards', `${dashboards} × $${PRICES.dashboard.usd}`, dashboards * PRICES.dashboard.usd);
  lines.push({
    item: 'Custom metrics published at rest',
    basis: `${options.customMetricsAtRest} × $${PRICES.customMetric.usd}`,
    usdPerMonth: options.customMetricsAtRest * PRICES.customMetric.usd,
  });
  const secrets = ofType(resources, 'AWS::SecretsManager::Secret').length;
  add('AWS::SecretsManager::Secret', 'Secrets Manager secrets', `${secrets} × $${PRICES.secret.usd}`, secrets * PRICES.secret.usd);
  const keys = ofType(resources, 'AWS::KMS::Key').length;
  add('AWS::KMS::Key', 'KMS customer managed keys', `${keys} × $${PRICES.kmsKey.usd}`, keys * PRICES.kmsKey.usd);

  const nat = ofType(resources, 'AWS::EC2::NatGateway').length;
  add(
    'AWS::EC2::NatGateway',
    'NAT gateways',
    `${nat} × ${HOURS_PER_MONTH} h × $${PRICES.natGateway.usd}`,
    nat * HOURS_PER_MONTH * PRICES.natGateway.usd,
  );
  const eips = ofType(resources, 'AWS::EC2::EIP').length;
  add(
    'AWS::EC2::EIP',
    'Elastic IP addresses (public IPv4)',
    `${eips} × ${HOURS_PER_MONTH} h × $${PRICES.publicIpv4.usd}`,
    eips * HOURS_PER_MONTH * PRICES.publicIpv4.usd,
  );
  let endpointAzs = 0;
  for (const [, e] of ofType(resources, 'AWS::EC2::VPCEndpoint'))
    if ((e.Properties.VpcEndpointType ?? 'Gateway') !== 'Gateway') endpointAzs += (e.Properties.SubnetIds ?? [null]).length;
  add(
    'AWS::EC2::VPCEndpoint',
    'Interface VPC endpoints (gateway endpoints are free)',
    `${endpointAzs} endpoint-AZs × ${HOURS_PER_MONTH} h × $${PRICES.interfaceEndpoint.usd}`,
    endpointAzs * HOURS_PER_MONTH * PRICES.interfaceEndpoint.usd,
  );

  // Flow logs are billed per GB of records delivered (as log ingestion): with no instances there
  // are no interfaces to record.
  const flowLogs = ofType(resources, 'AWS::EC2::FlowLog').length;
  add('AWS::EC2::FlowLog', 'VPC flow logs', `${flowLogs}, no interfaces to record at rest`, 0);

  for (const [id, table] of ofType(resources, 'AWS::DynamoDB::Table')) {
    const p = table.Properties;
    const gb = ASSUMPTIONS.emptyTableBytes / GB;
    const pitr = p.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled === true;
    let usd = gb * (PRICES.dynamodbStorage.usd + (pitr ? PRICES.pointInTimeRecovery.usd : 0));
    let basis = `empty: storage${pitr ? ' and point-in-time recovery' : ''} billed by size`;
    if (p.BillingMode !== 'PAY_PER_REQUEST') {
      const { ReadCapacityUnits: r = 0, WriteCapacityUnits: w = 0 } = p.ProvisionedThroughput ?? {};
      usd += HOURS_PER_MONTH * (r * PRICES.dynamodbProvisionedRead.usd + w * PRICES.dynamodbProvisionedWrite.usd);
      basis += `; provisioned ${r} RCU + ${w} WCU`;
    }
    add('AWS::DynamoDB::Table', `DynamoDB table ${id}`, basis, usd);
  }

  // The schedules: each run is one invocation of its target function, with its log lines.
  for (const [, rule] of ofType(resources, 'AWS::Events::Rule')) {
    const expression = rule.Properties.ScheduleExpression as string | undefined;
    if (!expression) continue;
    for (const target of rule.Properties.Targets ?? []) {
      const fnId = target.Arn?.['Fn::GetAtt']?.[0] as string | undefined;
      const fn = fnId ? resources[fnId] : undefined;
      if (!fn || fn.Type !== 'AWS::Lambda::Function')
        throw new Error(`cost model: schedule ${expression} targets something other than a function`);
      const key = functionKeyOf(fn);
      const ms = (key && ASSUMPTIONS.idleRunMs[key]) ?? ASSUMPTIONS.defaultIdleRunMs;
      const runs = runsPerMonth(expression);
      const each = invocationCost(resources, fn, ms);
      const lease = ASSUMPTIONS.runLeaseWriteUnits * (PRICES.dynamodbWrite.usd / 1e6);
      add(
        'AWS::Events::Rule',
        `Schedule ${expression}: ${key ?? fnId}`,
        `${count(runs)} runs × (${each.basis} + ${ASSUMPTIONS.runLeaseWriteUnits} WRU of its run lease)`,
        runs * (each.usd + lease),
      );
    }
  }

  // Lambda polls an SQS source around the clock, and those receives are billed: not modelled.
  const sqsMappings = ofType(resources, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => {
    const source = m.Properties.EventSourceArn?.['Fn::GetAtt']?.[0] as string | undefined;
    return source !== undefined && resources[source]?.Type === 'AWS::SQS::Queue';
  });
  const unpricedMappings = sqsMappings.length ? ['AWS::Lambda::EventSourceMapping (from an SQS queue)'] : [];

  const unpriced = [...new Set(Object.values(resources).map((r) => r.Type as string))].filter(
    (type) =>
      !priced.has(type) && !FREE_AT_REST.has(type) && !type.startsWith('Custom::') && type !== 'AWS::CloudFormation::CustomResource',
  );
  return { lines, usdPerMonth: lines.reduce((sum, l) => sum + l.usdPerMonth, 0), unpriced: [...unpriced, ...unpricedMappings] };
}

export interface AgentSettings {
  /** The agent's resync interval (agent/config.ts DEFAULT_RESYNC_SECONDS). */
  resyncSeconds: number;
  /** The agent's heartbeat: sent only after this long without any other request. */
  heartbeatSeconds: number;
  /** The SQS receive wait of the agent's hint long poll (agent/machine/hint-receiver.ts). */
  longPollSeconds: number;
}

/** P(sum of k independent uniforms on [0, 1] < x): the Irwin–Hall distribution. */
function irwinHallCdf(x: number, k: number): number {
  if (x <= 0) return 0;
  if (x >= k) return 1;
  let sum = 0;
  let binomial = 1;
  let factorial = 1;
  for (let i = 2; i <= k; i++) factorial *= i;
  for (let j = 0; j <= Math.floor(x); j++) {
    sum += (j % 2 ? -1 : 1) * binomial * (x - j) ** k;
    binomial = (binomial * (k - j)) / (j + 1);
  }
  return sum / factorial;
}

/**
 * An idle agent's API requests an hour: one per resync, and the heartbeats between two resyncs.
 * Resyncs come every resync × U(0.8, 1.2) (agent/machine/machine-agent.ts); a heartbeat comes
 * heartbeat × U(1, 1.2) after the last request (agent/machine/heartbeat.ts). So the k-th
 * heartbeat after a resync is sent if heartbeat × (k + 0.2 × IrwinHall(k)) falls before the next
 * resync; averaged over the resync interval (a renewal cycle), exactly, not by simulation.
 */
export function agentRequestsPerHour(settings: Pick<AgentSettings, 'resyncSeconds' | 'heartbeatSeconds'>): number {
  const { resyncSeconds: resync, heartbeatSeconds: heartbeat } = settings;
  const [resyncLow, resyncHigh] = ASSUMPTIONS.resyncJitter;
  const [heartbeatLow, heartbeatHigh] = ASSUMPTIONS.heartbeatJitter;
  if ((resync * resyncHigh) / (heartbeat * heartbeatLow) > 40)
    throw new Error('cost model: a heartbeat this much shorter than the resync is not modelled (over 40 a resync)');
  const steps = 2000;
  let requests = 0;
  for (let i = 0; i < steps; i++) {
    const interval = resync * (resyncLow + ((resyncHigh - resyncLow) * (i + 0.5)) / steps);
    requests += 1;
    for (let k = 1; heartbeat * heartbeatLow * k < interval; k++)
      requests += irwinHallCdf((interval / heartbeat - k * heartbeatLow) / (heartbeatHigh - heartbeatLow), k);
  }
  const meanInterval = (resync * (resyncLow + resyncHigh)) / 2;
  return ((requests / steps) * 3600) / meanInterval;
}

/**
 * The longest an idle agent goes unseen by status: until its next request (a heartbeat, or a
 * resync if that comes first), plus the API's presence write interval (a request within it of
 * the last recorded one is not recorded). It must stay under the lost threshold.
 */
export function longestUnseenSeconds(
  settings: Pick<AgentSettings, 'resyncSeconds' | 'heartbeatSeconds'>,
  lostAfterSeconds: number,
): number {
  const silence = Math.min(
    settings.resyncSeconds * ASSUMPTIONS.resyncJitter[1],
    settings.heartbeatSeconds * ASSUMPTIONS.heartbeatJitter[1],
  );
  return silence + presenceWriteIntervalMs(lostAfterSeconds * 1000) / 1000;
}

/**
 * An idle agent: it long-polls its queue without pause, and speaks to the API at each resync and
 * whenever it has been silent for a heartbeat interval (agentRequestsPerHour).
 */
export function costPerIdleAgent(
  template: Json,
  settings: AgentSettings,
): { lines: CostLine[]; usdPerMonth: number; requestsPerMonth: number } {
  const resources = template.Resources as Record<string, Json>;
  const receives = SECONDS_PER_MONTH / settings.longPollSeconds;
  const requests = agentRequestsPerHour(settings) * HOURS_PER_MONTH;
  const api = apiFunction(resources);
  const each = invocationCost(resources, api, ASSUMPTIONS.agentRequestMs);
  const accessLogGroups = ofType(resources, 'AWS::ApiGatewayV2::Stage')
    .map(([, stage]) => stage.Properties.AccessLogSettings?.DestinationArn?.['Fn::GetAtt']?.[0] as string | undefined)
    .filter((id) => id !== undefined);
  const accessLog = accessLogGroups.reduce(
    (sum, id) => sum + logCost(resources, id, ASSUMPTIONS.accessLogBytesPerRequest, 'the API stage'),
    0,
  );
  const lines: CostLine[] = [
    {
      item: 'SQS long polls of its hint queue',
      basis: `${count(receives)} receives (one per ${settings.longPollSeconds} s) × $${PRICES.sqsRequest.usd}/M`,
      usdPerMonth: (receives * PRICES.sqsRequest.usd) / MILLION,
    },
    {
      item: 'API Gateway requests (resync and heartbeat)',
      basis: `${count(requests)} requests (resync ${settings.resyncSeconds} s, heartbeat after ${settings.heartbeatSeconds} s silent) × $${PRICES.httpApiRequest.usd}/M`,
      usdPerMonth: (requests * PRICES.httpApiRequest.usd) / MILLION,
    },
    { item: 'Lambda invocations of the API function', basis: `${count(requests)} × (${each.basis})`, usdPerMonth: requests * each.usd },
    {
      item: 'API access log lines',
      basis: `${count(requests)} × ${accessLogGroups.length} × ${ASSUMPTIONS.accessLogBytesPerRequest} B`,
      usdPerMonth: requests * accessLog,
    },
    {
      item: 'DynamoDB requests (presence write, caller and view reads)',
      basis: `${count(requests)} × (${ASSUMPTIONS.agentRequestWriteUnits} WRU + ${ASSUMPTIONS.agentRequestReadUnits} RRU)`,
      usdPerMonth:
        (requests *
          (ASSUMPTIONS.agentRequestWriteUnits * PRICES.dynamodbWrite.usd + ASSUMPTIONS.agentRequestReadUnits * PRICES.dynamodbRead.usd)) /
        MILLION,
    },
  ];
  // The instance's SSM agent, kept registered for `drover ssh` (infra/machines.ts): Session Manager
  // bills nothing for EC2 instances, and its channels are outbound connections like SQS's.
  if (grantsAction(resources, 'ssmmessages:OpenControlChannel')) {
    lines.push({
      item: 'SSM agent registered for Session Manager (drover ssh)',
      basis: `$${PRICES.sessionManager.usd} per ${PRICES.sessionManager.unit}`,
      usdPerMonth: PRICES.sessionManager.usd,
    });
  }
  return { lines, usdPerMonth: lines.reduce((sum, l) => sum + l.usdPerMonth, 0), requestsPerMonth: requests };
}

/** Whether any IAM policy of the template allows the action. */
function grantsAction(resources: Record<string, Json>, action: string): boolean {
  return ofType(resources, 'AWS::IAM::Policy').some(([, policy]) =>
    (policy.Properties.PolicyDocument.Statement as Json[]).some((st) => ([] as string[]).concat(st.Action).includes(action)),
  );
}

/** The function behind the HTTP API's routes (the only Lambda integration). */
function apiFunction(resources: Record<string, Json>): Json {
  const targets = new Set<string>();
  for (const [, integration] of ofType(resources, 'AWS::ApiGatewayV2::Integration')) {
    const uri = integration.Properties.IntegrationUri;
    const id = uri?.['Fn::GetAtt']?.[0] as string | undefined;
    if (id) targets.add(id);
  }
  if (targets.size !== 1) throw new Error(`cost model: expected the API's routes to share one function, found ${targets.size}`);
  for (const [, api] of ofType(resources, 'AWS::ApiGatewayV2::Api'))
    if (api.Properties.ProtocolType !== 'HTTP') throw new Error('cost model: only HTTP APIs are priced');
  return resources[[...targets][0]!]!;
}

/** The price of a GiB-month of each volume type, and of its provisioned IOPS where that is billed. */
const VOLUME_PRICES: Record<EbsVolumeType, { storage: Price; iops?: Price }> = {
  gp3: { storage: PRICES.ebsGp3, iops: PRICES.ebsGp3Iops },
  gp2: { storage: PRICES.ebsGp2 },
  io1: { storage: PRICES.ebsIo1, iops: PRICES.ebsIo1Iops },
  io2: { storage: PRICES.ebsIo2, iops: PRICES.ebsIo2Iops },
  st1: { storage: PRICES.ebsSt1 },
  sc1: { storage: PRICES.ebsSc1 },
  standard: { storage: PRICES.ebsStandard },
};

/**
 * What a volume of the `ebs` pool costs a month (shared/provider/ec2/ebs-pool.ts makes its
 * parameters): its size, and what it asks beyond gp3's baseline or, for io1 and io2, all its IOPS.
 * Billed from creation to deletion, attached or not: a volume kept after its unit (persistent
 * storage, detach-storage) goes on costing this.
 */
export function costPerVolume(volume: EbsVolumeParameters): { lines: CostLine[]; usdPerMonth: number } {
  const prices = VOLUME_PRICES[volume.volumeType];
  const lines: CostLine[] = [
    {
      item: `${volume.volumeType} storage`,
      basis: `${count(volume.sizeGiB)} GiB × $${prices.storage.usd}`,
      usdPerMonth: volume.sizeGiB * prices.storage.usd,
    },
  ];
  const billedIops = volume.volumeType === 'gp3' ? Math.max(0, (volume.iops ?? 0) - GP3_BASELINE_IOPS) : (volume.iops ?? 0);
  if (prices.iops && billedIops > 0)
    lines.push({
      item: `${volume.volumeType} IOPS`,
      basis: `${count(billedIops)} IOPS × $${prices.iops.usd}`,
      usdPerMonth: billedIops * prices.iops.usd,
    });
  const billedThroughput = Math.max(0, (volume.throughput ?? 0) - GP3_BASELINE_THROUGHPUT_MIB);
  if (volume.volumeType === 'gp3' && billedThroughput > 0)
    lines.push({
      item: 'gp3 throughput',
      basis: `${count(billedThroughput)} MB/s × $${PRICES.ebsGp3Throughput.usd}`,
      usdPerMonth: billedThroughput * PRICES.ebsGp3Throughput.usd,
    });
  return { lines, usdPerMonth: lines.reduce((sum, l) => sum + l.usdPerMonth, 0) };
}

/** A Markdown table of cost lines, for the test's printout and the docs. */
export function costTable(lines: CostLine[], total: number): string {
  const usd = (n: number) => `$${n.toFixed(4)}`;
  return [
    '| item | basis | $/month |',
    '| --- | --- | --: |',
    ...lines.map((l) => `| ${l.item} | ${l.basis} | ${usd(l.usdPerMonth)} |`),
    `| **total** | | **${usd(total)}** |`,
  ].join('\n');
}

/** The price table, for the docs. */
export function priceTable(): string {
  return [
    `| price | us-east-1, ${PRICES_AS_OF} | source |`,
    '| --- | --: | --- |',
    ...Object.values(PRICES).map((p: Price) => `| ${p.unit} | $${p.usd} | ${p.source} |`),
  ].join('\n');
}
