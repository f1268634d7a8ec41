// The money a controller costs, computed from its synthesized template (infra/cost-model.ts): at
// rest ≈ $0 without an alarm email, and an idle agent within its budget. The numbers printed here
// are the ones docs/deploy-to-aws.md ("Cost") shows. Synthesis skips bundling the functions (their
// code does not change the bill) so this file stays cheap; test/infra/stack.test.ts bundles.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HEARTBEAT_SECONDS, DEFAULT_RESYNC_SECONDS } from '../../agent/config.js';
import { LONG_POLL_SECONDS } from '../../agent/machine/hint-receiver.js';
import {
  agentRequestsPerHour,
  alarmMetrics,
  costAtRest,
  costPerIdleAgent,
  costPerVolume,
  costTable,
  longestUnseenSeconds,
  PRICES,
  priceTable,
  runsPerMonth,
  type AgentSettings,
} from '../../infra/cost-model.js';
import { CONTEXT, createDroverApp } from '../../infra/drover-app.js';
import { REPO_ROOT } from '../../infra/functions.js';
import { DEFAULT_AGENT_LOST_AFTER_SECONDS } from '#shared/domain/presence.js';
import { ebsVolumeParameters } from '#shared/provider/ec2/ebs-pool.js';

type Json = Record<string, any>;

/**
 * The budgets: ≈ $0 at rest without an alarm email, and at most 6 cents a month per idle agent.
 * At rest, most of it is the scheduled runs, each with the two writes of its run lease
 * (functions/single-run.ts: one run at a time without reserved concurrency, which many accounts
 * refuse): about 7 cents of the 12.
 */
const AT_REST_BUDGET_USD = 0.15;
const IDLE_AGENT_BUDGET_USD = 0.06;

const AGENT: AgentSettings = {
  resyncSeconds: DEFAULT_RESYNC_SECONDS,
  heartbeatSeconds: DEFAULT_HEARTBEAT_SECONDS,
  longPollSeconds: LONG_POLL_SECONDS,
};

let workDir: string;
let quiet: Json;
let monitored: Json;
let encrypted: Json;

function synthesize(name: string, extraContext: Record<string, string>): Json {
  const context = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context as Json;
  // A stand-in agent: the bundle's content is not on the bill.
  const agentEntry = join(workDir, 'agent', 'main.ts');
  mkdirSync(join(workDir, 'agent'), { recursive: true });
  writeFileSync(agentEntry, "console.log('stand-in machine agent');\n");
  const { app, stack } = createDroverApp(
    {
      outdir: join(workDir, name),
      // No stack is bundled: functions get placeholder code, the rest of the template is the same.
      context: { ...context, 'aws:cdk:bundling-stacks': [], [CONTEXT.controllerId]: 'cost', ...extraContext },
    },
    { agentEntry },
  );
  return app.synth().getStackByName(stack.stackName).template as Json;
}

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'drover-cost-test-'));
  quiet = synthesize('quiet', {});
  monitored = synthesize('monitored', { [CONTEXT.alarmEmail]: 'ops@example.com' });
  // Synthesis runs cdk-nag's packs: a finding on the key or its grants would fail it here.
  encrypted = synthesize('encrypted', { [CONTEXT.stateTableKms]: 'true' });
}, 180_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const resourcesOfType = (template: Json, type: string) =>
  Object.values(template.Resources as Record<string, Json>).filter((r) => r.Type === type);

describe('alarms only with an alarm email', () => {
  it('without an email: no alarm, no topic, no dashboard', () => {
    expect(resourcesOfType(quiet, 'AWS::CloudWatch::Alarm')).toHaveLength(0);
    expect(resourcesOfType(quiet, 'AWS::CloudWatch::CompositeAlarm')).toHaveLength(0);
    expect(resourcesOfType(quiet, 'AWS::SNS::Topic')).toHaveLength(0);
    expect(resourcesOfType(quiet, 'AWS::CloudWatch::Dashboard')).toHaveLength(0);
  });

  it('with an email: every alarm notifies the topic the email is subscribed to', () => {
    const alarms = resourcesOfType(monitored, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(0);
    const [topicId] = Object.entries(monitored.Resources as Record<string, Json>).find(([, r]) => r.Type === 'AWS::SNS::Topic')!;
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(resourcesOfType(monitored, 'AWS::SNS::Subscription')).toEqual([
      expect.objectContaining({
        Properties: expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } }),
      }),
    ]);
  });
});

describe('the cost model', () => {
  it('counts the runs of a schedule', () => {
    expect(runsPerMonth('rate(1 minute)')).toBe(43_800);
    expect(runsPerMonth('rate(15 minutes)')).toBe(2_920);
    expect(runsPerMonth('rate(1 hour)')).toBe(730);
    expect(() => runsPerMonth('cron(0 12 * * ? *)')).toThrow(/use rate/);
  });

  it('prices every resource in the template, or knows it free at rest', () => {
    expect(costAtRest(quiet, { customMetricsAtRest: 0 }).unpriced).toEqual([]);
    expect(costAtRest(monitored, { customMetricsAtRest: 0 }).unpriced).toEqual([]);
  });

  it('prices what bills by the hour, and names what it cannot price', () => {
    const template = {
      Resources: {
        Nat: { Type: 'AWS::EC2::NatGateway', Properties: {} },
        Interface: { Type: 'AWS::EC2::VPCEndpoint', Properties: { VpcEndpointType: 'Interface', SubnetIds: ['a', 'b'] } },
        Gateway: { Type: 'AWS::EC2::VPCEndpoint', Properties: { VpcEndpointType: 'Gateway' } },
        Key: { Type: 'AWS::KMS::Key', Properties: {} },
        Secret: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
        Provisioned: {
          Type: 'AWS::DynamoDB::Table',
          Properties: { ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } },
        },
        Cluster: { Type: 'AWS::RDS::DBCluster', Properties: {} },
        Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
        FromQueue: { Type: 'AWS::Lambda::EventSourceMapping', Properties: { EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] } } },
      },
    };
    const cost = costAtRest(template, { customMetricsAtRest: 2 });
    // 730 h: $32.85 NAT + 2 AZs × $7.30 + $1 key + $0.40 secret + 730 × ($0.00013 + $0.00065) + 2 × $0.30.
    expect(cost.usdPerMonth).toBeCloseTo(32.85 + 14.6 + 1 + 0.4 + 0.5694 + 0.6, 6);
    expect(cost.unpriced).toEqual(['AWS::RDS::DBCluster', 'AWS::Lambda::EventSourceMapping (from an SQS queue)']);
  });

  it('counts an idle agent’s requests: each resync, and the heartbeats its jitter lets through', () => {
    // A heartbeat half the resync: two a resync when the resync is late, one when it is early.
    expect(agentRequestsPerHour({ resyncSeconds: 600, heartbeatSeconds: 300 })).toBeCloseTo(13.5, 3);
    // Equal: the heartbeat still beats a late resync a quarter of the time.
    expect(agentRequestsPerHour({ resyncSeconds: 600, heartbeatSeconds: 600 })).toBeCloseTo(7.5, 3);
    // A heartbeat 1.2 × the resync never fires: one request per resync.
    expect(agentRequestsPerHour({ resyncSeconds: 1200, heartbeatSeconds: 1440 })).toBeCloseTo(3, 6);
    // Checked against a direct simulation of the two timers.
    let seed = 1;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const simulate = (resync: number, heartbeat: number, hours: number) => {
      let requests = 0;
      let nextResync = resync * (0.8 + 0.4 * random());
      let nextHeartbeat = heartbeat * (1 + 0.2 * random());
      while (Math.min(nextResync, nextHeartbeat) < hours * 3600) {
        const now = Math.min(nextResync, nextHeartbeat);
        if (nextResync <= nextHeartbeat) nextResync = now + resync * (0.8 + 0.4 * random());
        nextHeartbeat = now + heartbeat * (1 + 0.2 * random());
        requests++;
      }
      return requests / hours;
    };
    expect(simulate(600, 300, 100_000)).toBeCloseTo(agentRequestsPerHour({ resyncSeconds: 600, heartbeatSeconds: 300 }), 1);
    expect(simulate(900, 400, 100_000)).toBeCloseTo(agentRequestsPerHour({ resyncSeconds: 900, heartbeatSeconds: 400 }), 1);
  });

  it('counts what an alarm email adds: the alarms and the dashboard', () => {
    // An alarm on metric math is billed per metric it reads.
    const alarms = resourcesOfType(monitored, 'AWS::CloudWatch::Alarm').reduce((sum, a) => sum + alarmMetrics(a), 0);
    const difference =
      costAtRest(monitored, { customMetricsAtRest: 0 }).usdPerMonth - costAtRest(quiet, { customMetricsAtRest: 0 }).usdPerMonth;
    expect(difference).toBeCloseTo(alarms * 0.1 + 3, 6);
  });
});

describe('a customer-managed key for the state table (drover:stateTableKms)', () => {
  it('costs the key a month: DynamoDB caches the table key, so requests at rest are negligible', () => {
    const difference =
      costAtRest(encrypted, { customMetricsAtRest: 0 }).usdPerMonth - costAtRest(quiet, { customMetricsAtRest: 0 }).usdPerMonth;
    expect(difference).toBeCloseTo(PRICES.kmsKey.usd, 6);
    expect(costAtRest(encrypted, { customMetricsAtRest: 0 }).lines).toContainEqual(
      expect.objectContaining({ item: 'KMS customer managed keys', basis: `1 × $${PRICES.kmsKey.usd}` }),
    );
  });

  it('encrypts the table with the rotated key, and only the roles granted the table may use it, on that key alone', () => {
    const keys = Object.entries(encrypted.Resources as Record<string, Json>).filter(([, r]) => r.Type === 'AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    const [table] = resourcesOfType(encrypted, 'AWS::DynamoDB::Table');
    expect(table!.Properties.SSESpecification).toMatchObject({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    const statements = resourcesOfType(encrypted, 'AWS::IAM::Policy').flatMap((p) => p.Properties.PolicyDocument.Statement as Json[]);
    const kmsStatements = statements.filter((s) => [s.Action].flat().some((a: string) => a.startsWith('kms:')));
    expect(kmsStatements.length).toBeGreaterThan(0);
    for (const s of kmsStatements) expect(s.Resource).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(kmsStatements.filter((s) => s.Sid === 'StateKey')).toHaveLength(6); // every role granted the table
    // Without the setting: the AWS-managed key, and no key at all.
    expect(resourcesOfType(quiet, 'AWS::KMS::Key')).toEqual([]);
  });
});

describe('what it costs', () => {
  it(`at rest without an alarm email: below $${AT_REST_BUDGET_USD} a month`, () => {
    // The watchdog publishes a metric only when it is non-zero (test/integration/watchdog.test.ts):
    // at rest, none.
    const cost = costAtRest(quiet, { customMetricsAtRest: 0 });
    const monitoredCost = costAtRest(monitored, { customMetricsAtRest: 0 });
    console.log(`prices:\n${priceTable()}\n`);
    console.log(`at rest, without an alarm email:\n${costTable(cost.lines, cost.usdPerMonth)}\n`);
    console.log(`at rest, with an alarm email: $${monitoredCost.usdPerMonth.toFixed(2)} a month\n`);
    expect(cost.usdPerMonth).toBeLessThan(AT_REST_BUDGET_USD);
  });

  it(`per idle agent, with the agent’s settings (heartbeat riding on a 20-min resync): at most $${IDLE_AGENT_BUDGET_USD} a month`, () => {
    const cost = costPerIdleAgent(quiet, AGENT);
    console.log(`per idle agent:\n${costTable(cost.lines, cost.usdPerMonth)}\n`);
    expect(cost.usdPerMonth).toBeLessThanOrEqual(IDLE_AGENT_BUDGET_USD);
    // One API request per resync: the heartbeat (1.2 × the resync) is never sent on its own.
    expect(cost.requestsPerMonth).toBeCloseTo((3600 / DEFAULT_RESYNC_SECONDS) * 730, 6);
    // The floor no setting moves: SQS's longest receive wait is 20 s.
    expect(cost.lines[0]!.item).toMatch(/SQS long polls/);
    // Reachable by `drover ssh` through Session Manager, which bills nothing for EC2 instances.
    expect(cost.lines.find((l) => l.item.includes('Session Manager'))?.usdPerMonth).toBe(0);
  });

  it('the agent’s settings keep an idle agent seen: its longest silence plus the presence write interval is under the lost threshold', () => {
    // 1.2 × 20 min silent, then the API records it at most a twelfth of 27 min late.
    const unseen = longestUnseenSeconds(AGENT, DEFAULT_AGENT_LOST_AFTER_SECONDS);
    expect(unseen).toBe(1440 + 135);
    expect(unseen).toBeLessThan(DEFAULT_AGENT_LOST_AFTER_SECONDS);
    // The earlier settings (resync 10 min, heartbeat 5 min) would cost more than the budget.
    expect(costPerIdleAgent(quiet, { ...AGENT, resyncSeconds: 600, heartbeatSeconds: 300 }).usdPerMonth).toBeGreaterThan(
      IDLE_AGENT_BUDGET_USD,
    );
  });
});

/** The volume docs/deploy-to-aws.md prices: 10 GiB from the `ebs` pool as it comes (gp3). */
const DOCUMENTED_VOLUME = ebsVolumeParameters(10 * 1024, {});

describe('an ebs volume', () => {
  const usd = (sizeMiB: number, attributes: Record<string, unknown>) =>
    Number(costPerVolume(ebsVolumeParameters(sizeMiB, attributes)).usdPerMonth.toFixed(4));

  it('costs its size at its type’s price per GiB-month', () => {
    expect(usd(1024, {})).toBe(PRICES.ebsGp3.usd);
    expect(usd(1025, {})).toBe(2 * PRICES.ebsGp3.usd);
    expect(usd(100 * 1024, { 'volume-type': 'gp2' })).toBe(100 * PRICES.ebsGp2.usd);
    expect(usd(500 * 1024, { 'volume-type': 'sc1' })).toBe(Number((500 * PRICES.ebsSc1.usd).toFixed(4)));
  });

  it('adds provisioned IOPS: all of io1’s, and gp3’s IOPS and throughput above its baseline only', () => {
    expect(usd(100 * 1024, { 'volume-type': 'io1', iops: 10 })).toBe(100 * PRICES.ebsIo1.usd + 1000 * PRICES.ebsIo1Iops.usd);
    expect(usd(100 * 1024, { iops: 30, throughput: '125M' })).toBe(100 * PRICES.ebsGp3.usd);
    expect(usd(200 * 1024, { iops: 20, throughput: '500M' })).toBe(
      200 * PRICES.ebsGp3.usd + 1000 * PRICES.ebsGp3Iops.usd + 375 * PRICES.ebsGp3Throughput.usd,
    );
  });

  it(`as the docs show it: 10 GiB of gp3`, () => {
    const { lines, usdPerMonth } = costPerVolume(DOCUMENTED_VOLUME);
    console.log(`a 10 GiB volume of the ebs pool:\n${costTable(lines, usdPerMonth)}\n`);
    expect(lines.map((l) => l.item)).toEqual(['gp3 storage']);
  });
});

describe('the figures the documentation shows', () => {
  const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

  it('are the ones computed here: docs/deploy-to-aws.md ("Cost") and the README', () => {
    const rest = costAtRest(quiet, { customMetricsAtRest: 0 }).usdPerMonth;
    const withEmail = costAtRest(monitored, { customMetricsAtRest: 0 }).usdPerMonth;
    const agent = costPerIdleAgent(quiet, AGENT).usdPerMonth;
    const alarms = resourcesOfType(monitored, 'AWS::CloudWatch::Alarm');
    const metrics = alarms.reduce((sum, a) => sum + alarmMetrics(a), 0);
    const doc = read('docs/deploy-to-aws.md');
    expect(doc.replace(/ +/g, ' ')).toContain(`| **total** | | **$${rest.toFixed(4)}** |`);
    expect(doc.replace(/ +/g, ' ')).toContain(`| **total** | | **$${agent.toFixed(4)}** |`);
    expect(doc).toContain(`With an alarm email the total is $${withEmail.toFixed(2)} a month.`);
    expect(doc.replace(/\s+/g, ' ')).toContain(
      `adds ${alarms.length} alarms reading ${metrics} metrics (the errors and throttles alarms each read every function's), their SNS topic with the email subscription, and the dashboard: $${(withEmail - rest).toFixed(2)} a month more.`,
    );
    const volume = costPerVolume(DOCUMENTED_VOLUME).usdPerMonth;
    expect(doc.replace(/ +/g, ' ')).toContain(`| **total** | | **$${volume.toFixed(4)}** |`);
    const readme = read('README.md').replace(/\s+/g, ' ');
    expect(readme).toContain(`costs about $${rest.toFixed(2)} a month`);
    expect(readme).toContain(`about $${withEmail.toFixed(2)} a month`);
    expect(readme).toContain(`an idle machine agent costs about $${agent.toFixed(2)} a month`);
  });
});
