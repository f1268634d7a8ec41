// The AWS deployment, proven offline (docs/deploy-to-aws.md): the CDK app is synthesised in-process — once for
// the whole file — with no credentials, no Docker and no network, and then the template is read
// as a spec: state, stream consumers, IAM, API authorization, IMDSv2, encryption, runtimes, the
// cdk-nag verdict and the size of every bundle.
import dns from 'node:dns';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CfnElement, Token, Validations } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { SERVERLESS_ACKNOWLEDGEMENTS } from '../../infra/nag-acknowledgements.js';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ENTRY } from '../../infra/agent-bundle.js';
import { AGENT_ROUTE, USER_ROUTE } from '../../infra/api.js';
import { SCHEDULES } from '../../infra/schedules.js';
import { createDroverApp, type DroverApp } from '../../infra/drover-app.js';
import { INSTANCE_TAG } from '#shared/messaging/queue-instance-tag.js';
import { FUNCTION_SPECS, REPO_ROOT, type FunctionKey } from '../../infra/functions.js';
import { pollerSettingsOf } from '../../embedded/stream/consumer-settings.js';
import { STREAM_CONSUMERS } from '../../functions/stream-consumers.js';
import { VARIABLES } from '../../functions/environment.js';
import { machineQueuePrefix } from '../../infra/machines.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG } from '#shared/provider/ec2/tags.js';
import { CANONICAL_OWNER_ID } from '#shared/provider/ec2/images.js';
import { EC2_INSTANCE_TYPES } from '#shared/provider/ec2/instance-types.js';
import { EBS_VOLUME_TYPES } from '#shared/provider/ec2/ebs-pool.js';
import { tlsOnlyStatement } from '#shared/messaging/queue-policy.js';
import { ATTR, INDEX, RUN_LEASE_PREFIX } from '#shared/state/engine/keys.js';
import { tableDefinition } from '#shared/state/engine/table.js';

const CONTROLLER = 'ci';
// How the template says "the UUID at the end of the stack id" (arn:...:stack/<name>/<uuid>).
const DEPLOYMENT_ID = { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] };
const MB = 1024 * 1024;

type Json = Record<string, any>;
interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}

let built: DroverApp;
let assembly: CloudAssembly;
let template: Template;
let resources: Record<string, Json>;
let workDir: string;
const network: string[] = [];
let dockerCalls = '';
let childNetwork = '';

// --- measuring "no network, no Docker, no credentials" -------------------------------------------

// Child processes (npx → esbuild) load this: any DNS lookup or TCP connection they make is logged.
const CHILD_TRAP = (log: string) => `
const fs = require('node:fs'), dns = require('node:dns'), net = require('node:net');
const note = (what) => fs.appendFileSync(${JSON.stringify(log)}, process.pid + ' ' + what + '\\n');
note('observed ' + process.argv.slice(1, 3).join(' '));
for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6', 'resolveAny']) {
  const original = dns[name];
  dns[name] = function (host, ...rest) { note('dns.' + name + ' ' + host); return original.call(this, host, ...rest); };
}
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const o = args[0];
  if (!(o && typeof o === 'object' && o.path) && typeof o !== 'string') note('connect ' + JSON.stringify(o && typeof o === 'object' ? { host: o.host, port: o.port } : args.slice(0, 2)));
  return connect.apply(this, args);
};
`;

function trapNetworkInProcess(): () => void {
  const originals: [object, string, unknown][] = [];
  const wrap = <T extends object>(target: T, name: string, label: string) => {
    const original = (target as Record<string, unknown>)[name] as (...a: unknown[]) => unknown;
    originals.push([target, name, original]);
    (target as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
      network.push(`${label} ${String(args[0] && typeof args[0] === 'object' ? JSON.stringify(args[0]) : args[0])}`);
      return original.apply(this, args);
    };
  };
  for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6', 'resolveAny']) wrap(dns, name, `dns.${name}`);
  wrap(dns.promises, 'lookup', 'dns.promises.lookup');
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const o = args[0] as { path?: string; host?: string; port?: number } | string | undefined;
    // Unix sockets (vitest's own IPC) are local; anything with a host or port is network.
    if (!(typeof o === 'object' && o?.path) && typeof o !== 'string') network.push(`connect ${JSON.stringify(o)}`);
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  return () => {
    for (const [target, name, original] of originals) (target as Record<string, unknown>)[name] = original;
    net.Socket.prototype.connect = connect;
  };
}

/** Runs `fn` with no AWS credentials, a `docker` that records being called, and a network trap. */
function offline<T>(fn: () => T): T {
  const saved = { ...process.env };
  const bin = join(workDir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'docker'), `#!/bin/sh\necho "docker $*" >> ${JSON.stringify(join(workDir, 'docker-calls'))}\nexit 1\n`);
  chmodSync(join(bin, 'docker'), 0o755);
  writeFileSync(join(workDir, 'trap.cjs'), CHILD_TRAP(join(workDir, 'child-network')));
  for (const key of Object.keys(process.env)) if (key.startsWith('AWS_') || key.startsWith('CDK_')) delete process.env[key];
  process.env.AWS_CONFIG_FILE = join(workDir, 'no-aws-config');
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(workDir, 'no-aws-credentials');
  process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  process.env.NODE_OPTIONS = `${saved.NODE_OPTIONS ?? ''} --require ${join(workDir, 'trap.cjs')}`.trim();
  const restore = trapNetworkInProcess();
  try {
    return fn();
  } finally {
    restore();
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

// --- template helpers ----------------------------------------------------------------------------

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
/** The logical id of the CloudFormation resource at a construct path (or its default child). */
const logicalIdOf = (path: string) => {
  let construct = built.app.node.findAll().find((c) => c.node.path === path);
  if (construct && !CfnElement.isCfnElement(construct)) construct = construct.node.defaultChild;
  if (!construct || !CfnElement.isCfnElement(construct)) throw new Error(`no resource at ${path}`);
  return built.stack.getLogicalId(construct);
};
const fnLogicalId = (key: FunctionKey) =>
  logicalIdOf(`drover-${CONTROLLER}/Functions/${key.charAt(0).toUpperCase()}${key.slice(1)}/Resource`);
const roleLogicalId = (key: FunctionKey) =>
  (resources[fnLogicalId(key)]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
/** The staged bundle directory of a function (cdk.out/asset.<hash>). */
const assetDirOf = (key: FunctionKey) =>
  join(assembly.directory, `asset.${String(resources[fnLogicalId(key)]!.Properties.Code.S3Key).replace(/\.zip$/, '')}`);
const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const resourcesOf = (s: Statement) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);

/** Every policy statement in the template, with the roles it is attached to. */
function statements(): { roles: string[]; statement: Statement; policy: string }[] {
  const out: { roles: string[]; statement: Statement; policy: string }[] = [];
  for (const [id, r] of [...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')]) {
    const roles = ((r.Properties.Roles ?? []) as { Ref: string }[]).map((x) => x.Ref);
    for (const statement of r.Properties.PolicyDocument.Statement as Statement[]) out.push({ roles, statement, policy: id });
  }
  return out;
}
const statementsOfRole = (role: string) =>
  statements()
    .filter((s) => s.roles.includes(role))
    .map((s) => s.statement);
const allowedActions = (role: string) => new Set(statementsOfRole(role).flatMap(actionsOf));

// --- synthesis, once ------------------------------------------------------------------------------

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'drover-infra-test-'));
  const context = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context as Json;
  // The real agent: its bundle is measured and run below.
  const agentEntry = join(REPO_ROOT, AGENT_ENTRY);
  built = offline(() => {
    const app = createDroverApp(
      {
        outdir: join(workDir, 'cdk.out'),
        context: { ...context, 'drover:controllerId': CONTROLLER, 'drover:alarmEmail': 'ops@example.com' },
      },
      { agentEntry },
    );
    // Synthesis runs the cdk-nag plugin and CloudFormation validation; either failing throws.
    assembly = app.app.synth();
    return app;
  });
  template = Template.fromJSON(assembly.getStackByName(built.stack.stackName).template);
  resources = template.toJSON().Resources as Record<string, Json>;
  dockerCalls = existsSync(join(workDir, 'docker-calls')) ? readFileSync(join(workDir, 'docker-calls'), 'utf8') : '';
  childNetwork = existsSync(join(workDir, 'child-network')) ? readFileSync(join(workDir, 'child-network'), 'utf8') : '';
}, 240_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('synthesis offline', () => {
  it('makes no DNS lookup and no network connection, in-process or in the bundling processes', () => {
    expect(network).toEqual([]);
    const lines = childNetwork.split('\n').filter(Boolean);
    // The trap did run in the bundling processes (npx → esbuild), and saw nothing else.
    expect(lines.some((l) => l.includes(' observed '))).toBe(true);
    expect(lines.filter((l) => !l.includes(' observed '))).toEqual([]);
  });

  it('never calls Docker: every function is bundled by the local esbuild', () => {
    expect(dockerCalls).toBe('');
  });

  it('is environment-agnostic and needs no context lookups', () => {
    expect(Token.isUnresolved(built.stack.account)).toBe(true);
    expect(Token.isUnresolved(built.stack.region)).toBe(true);
    const artifact = assembly.getStackByName(built.stack.stackName);
    expect(artifact.environment.account).toBe('unknown-account');
    expect(artifact.environment.region).toBe('unknown-region');
    expect(assembly.manifest.missing ?? []).toEqual([]);
  });

  it('keeps cdk.json free of telemetry, notices and version reporting', () => {
    const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as Json;
    expect(cdkJson.app).toBe('npx tsx infra/app.ts');
    expect(cdkJson.notices).toBe(false);
    expect(cdkJson.versionReporting).toBe(false);
    expect(cdkJson.context['cli-telemetry']).toBe(false);
    expect(template.toJSON().Resources.CDKMetadata).toBeUndefined();
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  it('leaves no unacknowledged finding', () => {
    const report = new AwsSolutionsChecks().validateScope(built.app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.resourceLogicalId).join(', ')}`);
    expect(findings).toEqual([]);
  });

  it('names the reason of every acknowledgement, and acknowledges only findings that exist', () => {
    const acknowledged: { path: string; id: string; reason: string }[] = [];
    for (const construct of built.app.node.findAll())
      for (const entry of construct.node.metadata)
        if (entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          for (const [id, reason] of Object.entries(entry.data as Record<string, string>))
            if (id.includes('AwsSolutions-')) acknowledged.push({ path: construct.node.path, id: id.replace(/^[^:]*::/, ''), reason });
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const a of acknowledged) expect(a.reason.length, `${a.id} at ${a.path}`).toBeGreaterThan(40);

    // The raw findings, as if nothing were acknowledged: each acknowledgement must match one.
    const raw = new AwsSolutionsChecks();
    (raw as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
    const findings = raw
      .validateScope(built.app)
      .violations.flatMap((v) => v.violatingResources.map((r) => ({ id: v.ruleName, path: r.constructPath ?? '' })));
    const stale = acknowledged.filter(
      (a) => !findings.some((f) => f.id === a.id && (f.path === a.path || f.path.startsWith(`${a.path}/`))),
    );
    expect(stale).toEqual([]);
  });
});

describe('cdk-nag (Serverless)', () => {
  it('runs beside AwsSolutions and leaves no unacknowledged finding', () => {
    // Synthesis above would have thrown on one; the pack must be among the plugins that ran.
    expect(built.serverless).toBeInstanceOf(ServerlessChecks);
  });

  it('acknowledges, each with its reason in infra/nag-acknowledgements.ts, only rules that have a finding', () => {
    const raw = new ServerlessChecks();
    (raw as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
    const rules = new Set(raw.validateScope(built.app).violations.map((v) => v.ruleName));
    for (const [rule, reason] of Object.entries(SERVERLESS_ACKNOWLEDGEMENTS)) {
      expect(rules, rule).toContain(rule);
      expect(reason.length, rule).toBeGreaterThan(40);
    }
    // And nothing it finds goes unexplained.
    expect([...rules].sort()).toEqual(Object.keys(SERVERLESS_ACKNOWLEDGEMENTS).sort());
  });
});

describe('state table', () => {
  const table = () => ofType('AWS::DynamoDB::Table')[0]![1];

  it('has the key schema, attributes and indexes of shared/state/engine/table.ts', () => {
    const expected = tableDefinition('drover');
    const props = table().Properties;
    expect(props.KeySchema).toEqual(expected.KeySchema);
    expect(new Set(props.AttributeDefinitions.map((a: Json) => JSON.stringify(a)))).toEqual(
      new Set(expected.AttributeDefinitions!.map((a) => JSON.stringify(a))),
    );
    const indexes = Object.fromEntries(props.GlobalSecondaryIndexes.map((i: Json) => [i.IndexName, i]));
    expect(Object.keys(indexes).sort()).toEqual(Object.values(INDEX).sort());
    for (const gsi of expected.GlobalSecondaryIndexes!) {
      expect(indexes[gsi.IndexName!].KeySchema).toEqual(gsi.KeySchema);
      expect(indexes[gsi.IndexName!].Projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
    }
    expect(props.KeySchema[0].AttributeName).toBe(ATTR.pk);
  });

  it('streams new and old images, on demand, with point-in-time recovery and encryption', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('expires status history entries by TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } });
  });

  it('is retained when the stack is deleted, and protected from deletion by hand', () => {
    expect(table().DeletionPolicy).toBe('Retain');
    expect(table().UpdateReplacePolicy).toBe('Retain');
    // drover:retainState=false (deletable, unprotected) is test/infra/state-table.test.ts.
    expect(table().Properties.DeletionProtectionEnabled).toBe(true);
  });
});

describe('stream consumers', () => {
  const mappingOf = (key: FunctionKey) => {
    const found = ofType('AWS::Lambda::EventSourceMapping').filter(([, r]) => r.Properties.FunctionName.Ref === fnLogicalId(key));
    expect(found).toHaveLength(1);
    return found[0]![1].Properties as Json;
  };
  const failureQueue = () => logicalIdOf(`drover-${CONTROLLER}/StreamConsumers/StreamFailures/Resource`);
  const filterPatterns = (key: FunctionKey) => (mappingOf(key).FilterCriteria?.Filters ?? []).map((f: Json) => JSON.parse(f.Pattern));

  it('gives the stream at most two readers, as DynamoDB advises: one mapping per consumer in the list', () => {
    expect(ofType('AWS::Lambda::EventSourceMapping')).toHaveLength(STREAM_CONSUMERS.length);
    expect(STREAM_CONSUMERS.length).toBeLessThanOrEqual(2);
  });

  for (const consumer of STREAM_CONSUMERS) {
    it(`${consumer.name}: bisects, reports partial batch failures, retries a bounded number of times for a bounded age, then notes the batch in the failure queue`, () => {
      const m = mappingOf(consumer.name);
      expect(m.EventSourceArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^StateTable/), 'StreamArn'] });
      expect(m.BisectBatchOnFunctionError).toBe(true);
      expect(m.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      expect(m.MaximumRetryAttempts).toBeGreaterThan(0);
      expect(m.MaximumRetryAttempts).toBeLessThanOrEqual(10);
      expect(m.MaximumRecordAgeInSeconds).toBeGreaterThan(0);
      expect(m.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(24 * 3600);
      expect(m.DestinationConfig.OnFailure.Destination).toEqual({ 'Fn::GetAtt': [failureQueue(), 'Arn'] });
      expect(m.StartingPosition).toBe('TRIM_HORIZON');
      expect(m.BatchSize).toBeGreaterThan(0);
    });

    it(`${consumer.name}: the local controller's poller gets the settings and the filter the mapping has`, () => {
      const m = mappingOf(consumer.name);
      const local = pollerSettingsOf(consumer);
      expect({
        batchSize: m.BatchSize,
        maxRetryAttempts: m.MaximumRetryAttempts,
        maximumRecordAgeMs: m.MaximumRecordAgeInSeconds * 1000,
        bisectBatchOnFunctionError: m.BisectBatchOnFunctionError,
      }).toEqual({
        batchSize: local.batchSize,
        maxRetryAttempts: local.maxRetryAttempts,
        maximumRecordAgeMs: local.maximumRecordAgeMs,
        bisectBatchOnFunctionError: local.bisectBatchOnFunctionError,
      });
      const patterns = filterPatterns(consumer.name);
      for (const record of SAMPLE_RECORDS)
        expect(local.filter(record), JSON.stringify(record.dynamodb)).toBe(patterns.some((p: Json) => lambdaPatternMatches(p, record)));
    });
  }

  it('shows the provisioner machine items only: new or changed ones, and removed ones by their old image', () => {
    expect(filterPatterns('provisioner')).toEqual([
      { dynamodb: { NewImage: { [ATTR.kind]: { S: ['machine'] } } } },
      { dynamodb: { OldImage: { [ATTR.kind]: { S: ['machine'] } } } },
    ]);
  });

  it('shows the changes function every record but agent presence and the model revision it moves itself', () => {
    expect(filterPatterns('changes')).toEqual([
      { dynamodb: { NewImage: { [ATTR.kind]: { S: [{ 'anything-but': ['presence', 'modelRevision'] }] } } } },
      { dynamodb: { OldImage: { [ATTR.kind]: { S: [{ 'anything-but': ['presence', 'modelRevision'] }] } } } },
    ]);
  });
});

/** Stream records of every kind the consumers' filters name, with one image or both, and one that is not drover's. */
const SAMPLE_RECORDS: DynamoDBRecord[] = ['machine', 'presence', 'cleanup', 'unit', 'modelRevision'].flatMap((kind) => {
  const image = { [ATTR.kind]: { S: kind } };
  return [
    { eventName: 'INSERT' as const, dynamodb: { NewImage: image } },
    { eventName: 'MODIFY' as const, dynamodb: { OldImage: image, NewImage: image } },
    { eventName: 'REMOVE' as const, dynamodb: { OldImage: image } },
  ];
});
SAMPLE_RECORDS.push({ eventName: 'INSERT', dynamodb: { NewImage: { other: { S: 'x' } } } });

/**
 * Lambda's filter pattern, for the one shape these mappings use: `{ dynamodb: { <image>: { <attr>:
 * { S: [value | { 'anything-but': [values] }] } } } }`
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html).
 */
function lambdaPatternMatches(pattern: Json, record: DynamoDBRecord): boolean {
  const [image, attributes] = Object.entries(pattern.dynamodb as Record<string, Json>)[0]!;
  const [attribute, { S: rules }] = Object.entries(attributes as Record<string, Json>)[0]!;
  const value = (record.dynamodb as Json)?.[image]?.[attribute]?.S;
  if (value === undefined) return false;
  return (rules as Json[]).some((rule) => (typeof rule === 'string' ? rule === value : !rule['anything-but'].includes(value)));
}

describe('IAM', () => {
  const DATA_SERVICES = ['dynamodb', 's3', 'sqs'];
  // Actions whose service accepts no narrower resource: each is explained where it is granted.
  const STAR_RESOURCE_ALLOWED = new Set([
    'ec2:DescribeInstances',
    'ec2:DescribeImages',
    'ec2:DescribeSubnets',
    'ec2:DescribeVolumes',
    'ec2:DescribeSecurityGroups',
    'dynamodb:ListStreams',
    'sqs:ListQueues',
    // Session Manager's message channels, which the machines' SSM agent opens for ssh: the
    // service defines no resource type for them (infra/machines.ts, grantSessionManager).
    'ssmmessages:CreateControlChannel',
    'ssmmessages:CreateDataChannel',
    'ssmmessages:OpenControlChannel',
    'ssmmessages:OpenDataChannel',
  ]);
  // Of those, the ones that read only names of data resources, never data.
  const LISTS_NAMES_ONLY = ['dynamodb:ListStreams', 'sqs:ListQueues'];

  it('grants no wildcard action anywhere', () => {
    for (const { statement, policy } of statements())
      for (const action of actionsOf(statement)) expect(action, `${policy}`).not.toContain('*');
  });

  it('grants Resource "*" only for actions that support no resource-level permissions, never for data', () => {
    for (const { statement, policy } of statements()) {
      if (!resourcesOf(statement).includes('*')) continue;
      for (const action of actionsOf(statement)) {
        expect(STAR_RESOURCE_ALLOWED.has(action), `${action} on * in ${policy}`).toBe(true);
        if (!LISTS_NAMES_ONLY.includes(action)) expect(DATA_SERVICES).not.toContain(action.split(':')[0]);
      }
    }
  });

  it('gives each function only its own DynamoDB item actions', () => {
    const dynamo = (key: FunctionKey) =>
      [...allowedActions(roleLogicalId(key))]
        .filter((a) => a.startsWith('dynamodb:') && !/Stream|GetRecords|GetShardIterator/.test(a))
        .sort();
    const read = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
    const write = ['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
    // The watchdog reads listings only (no item by key) and writes its run lease only: a put and
    // a delete of the lease items, by key.
    expect(dynamo('watchdog')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:PutItem'].sort());
    const watchdogWrites = statementsOfRole(roleLogicalId('watchdog')).filter((st) => actionsOf(st).includes('dynamodb:PutItem'));
    expect(watchdogWrites.map((st) => st.Condition)).toEqual([
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RUN_LEASE_PREFIX}*`] } },
    ]);
    expect(dynamo('api')).toEqual([...read, ...write].sort());
    expect(dynamo('provisioner')).toEqual([...read, ...write].sort());
    expect(dynamo('provisionerReconcile')).toEqual([...read, ...write].sort());
    expect(dynamo('changes')).toEqual([...read, ...write, 'dynamodb:BatchWriteItem'].sort());
    expect(dynamo('cleanupSweep')).toEqual([...read, ...write, 'dynamodb:BatchWriteItem'].sort());
    for (const key of Object.keys(FUNCTION_SPECS) as FunctionKey[])
      expect([...allowedActions(roleLogicalId(key))]).not.toContain('dynamodb:Scan');
  });

  it('lets only the api function touch charm archives, under the charm prefix', () => {
    const s3 = statements().filter(
      (s) => actionsOf(s.statement).some((a) => a.startsWith('s3:')) && s.roles.length > 0 && !s.policy.startsWith('Machines'),
    );
    const holders = new Set(s3.flatMap((s) => s.roles));
    const api = roleLogicalId('api');
    const provisioners = [roleLogicalId('provisioner'), roleLogicalId('provisionerReconcile')];
    expect([...holders].filter((r) => r !== api && !provisioners.includes(r))).toEqual([]);
    const charmStatements = statementsOfRole(api).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    expect(charmStatements.flatMap(actionsOf).sort()).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(JSON.stringify(charmStatements)).toContain('/charms/*');
  });

  it('lets the api function get and put exactly charm archives and uploads (what it presigns and copies), delete only uploads, nothing else of the bucket', () => {
    const objects = statementsOfRole(roleLogicalId('api')).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('s3:') && a !== 's3:ListBucket'),
    );
    const suffixesOf = (statement: (typeof objects)[number]) =>
      resourcesOf(statement).map((r) => {
        const parts = (r as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
        expect(parts[0]).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^CharmsBucket/), 'Arn'] });
        return parts[1];
      });
    expect(objects.map((s) => actionsOf(s).sort())).toEqual([['s3:GetObject', 's3:PutObject'], ['s3:DeleteObject']]);
    expect(suffixesOf(objects[0]!).sort()).toEqual(['/charms/*', '/uploads/*']);
    expect(suffixesOf(objects[1]!)).toEqual(['/uploads/*']);
  });

  it('lets the provisioner launch only tagged instances, from Canonical images, into the machine network', () => {
    const role = roleLogicalId('provisioner');
    const run = statementsOfRole(role).filter((s) => actionsOf(s).includes('ec2:RunInstances'));
    const tags = { [`aws:RequestTag/${CONTROLLER_TAG}`]: CONTROLLER, [`aws:RequestTag/${DEPLOYMENT_TAG}`]: DEPLOYMENT_ID };
    const instances = run.find((s) => s.Sid === 'LaunchTaggedInstances')!;
    expect(instances.Condition).toEqual({
      StringEquals: {
        ...tags,
        // Only what the catalogue can choose, and IMDSv2: the keys of the instance resource.
        'ec2:InstanceType': EC2_INSTANCE_TYPES.map((t) => t.name),
        'ec2:MetadataHttpTokens': 'required',
      },
    });
    expect(resourcesOf(instances)).toHaveLength(1);
    expect(JSON.stringify(instances.Resource)).toMatch(/:instance\/\*"/);
    // The volume lacks those keys (a condition on them would refuse it): its own statement, tags only.
    const volumes = run.find((s) => s.Sid === 'LaunchTaggedVolumes')!;
    expect(volumes.Condition).toEqual({ StringEquals: tags });
    expect(resourcesOf(volumes)).toHaveLength(1);
    expect(JSON.stringify(volumes.Resource)).toMatch(/:volume\/\*"/);
    // No other RunInstances statement may name the instance or volume without those conditions.
    for (const other of run.filter((s) => s !== instances && s !== volumes))
      expect(JSON.stringify(other.Resource)).not.toMatch(/:(instance|volume)\//);
    const images = run.find((s) => s.Sid === 'LaunchCanonicalImages')!;
    expect(images.Condition).toEqual({ StringEquals: { 'ec2:Owner': CANONICAL_OWNER_ID } });
    const network = run.find((s) => s.Sid === 'LaunchIntoMachineNetwork')!;
    expect(JSON.stringify(network.Resource)).toContain('launch-template/');
    expect(JSON.stringify(network.Resource)).not.toContain('security-group/*');
    expect(JSON.stringify(network.Resource)).not.toContain('subnet/*');
    // Every RunInstances resource is covered by exactly these four statements.
    expect(run).toHaveLength(4);
  });

  it("lets the provisioner terminate only this controller's instances, and tag only at launch", () => {
    const ss = statementsOfRole(roleLogicalId('provisioner'));
    const terminate = ss.find((s) => actionsOf(s).includes('ec2:TerminateInstances'))!;
    expect(terminate.Condition).toEqual({ StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: CONTROLLER } });
    const tags = ss.filter((s) => actionsOf(s).includes('ec2:CreateTags'));
    expect(tags.map((s) => s.Condition)).toEqual([
      { StringEquals: { 'ec2:CreateAction': 'RunInstances' } },
      { StringEquals: { 'ec2:CreateAction': 'CreateVolume', [`aws:RequestTag/${CONTROLLER_TAG}`]: CONTROLLER } },
    ]);
  });

  it("lets the provisioner make only tagged, encrypted EBS volumes, and attach, detach and delete only this controller's", () => {
    for (const key of ['provisioner', 'provisionerReconcile'] as const) {
      const ss = statementsOfRole(roleLogicalId(key));
      const withAction = (action: string) => ss.filter((s) => actionsOf(s).includes(action));
      const [create, ...otherCreates] = withAction('ec2:CreateVolume');
      expect(otherCreates).toEqual([]);
      expect(create!.Condition).toEqual({
        StringEquals: {
          [`aws:RequestTag/${CONTROLLER_TAG}`]: CONTROLLER,
          [`aws:RequestTag/${DEPLOYMENT_TAG}`]: DEPLOYMENT_ID,
          'ec2:VolumeType': [...EBS_VOLUME_TYPES],
        },
        Bool: { 'ec2:Encrypted': 'true' },
      });
      expect(JSON.stringify(create!.Resource)).toMatch(/:volume\/\*"/);
      for (const action of ['ec2:AttachVolume', 'ec2:DetachVolume', 'ec2:DeleteVolume'])
        for (const statement of withAction(action))
          expect(statement.Condition, action).toEqual({ StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: CONTROLLER } });
      expect(withAction('ec2:DeleteVolume')).toHaveLength(1);
    }
  });

  it("gives no role a way to change the machines' shared security group's rules", () => {
    const sg = logicalIdOf(`drover-${CONTROLLER}/Machines/MachineSecurityGroup/Resource`);
    const ruleActions = ['ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupIngress', 'ec2:DeleteSecurityGroup'];
    const changing = statements().filter((s) => actionsOf(s.statement).some((a) => ruleActions.includes(a) || a === 'ec2:*'));
    expect(changing.length).toBeGreaterThan(0);
    for (const { statement } of changing) {
      // Never the shared group by name, and any group only with this controller's tag on it, which
      // the shared group does not carry.
      expect(JSON.stringify(statement.Resource)).not.toContain(sg);
      expect(statement.Condition).toEqual({ StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: CONTROLLER } });
    }
    const shared = ofType('AWS::EC2::SecurityGroup').find(([id]) => id === sg)![1].Properties;
    expect(JSON.stringify(shared.Tags ?? [])).not.toContain(CONTROLLER_TAG);
    // The one statement naming it lets the reconcile keep it on instances while changing their groups.
    const naming = statements().filter((s) => JSON.stringify(s.statement.Resource).includes(sg));
    expect(naming.flatMap((s) => actionsOf(s.statement)).filter((a) => a !== 'ec2:RunInstances')).toEqual(['ec2:ModifyInstanceAttribute']);
  });

  it("lets the scheduled reconcile alone keep application security groups, only with this controller's tags", () => {
    const ss = statementsOfRole(roleLogicalId('provisionerReconcile'));
    const bySid = (sid: string) => ss.find((s) => s.Sid === sid)!;
    const create = bySid('CreateTaggedApplicationGroups');
    expect(actionsOf(create)).toEqual(['ec2:CreateSecurityGroup']);
    expect(JSON.stringify(create.Resource)).toMatch(/:security-group\/\*"/);
    expect(create.Condition).toEqual({
      StringEquals: { [`aws:RequestTag/${CONTROLLER_TAG}`]: CONTROLLER, [`aws:RequestTag/${DEPLOYMENT_TAG}`]: DEPLOYMENT_ID },
    });
    // Its other resource is the machines' VPC, and no other.
    const vpc = logicalIdOf(`drover-${CONTROLLER}/Machines/Vpc/Resource`);
    const inVpc = bySid('CreateApplicationGroupsInMachineVpc');
    expect(JSON.stringify(inVpc.Resource)).toContain(`:vpc/`);
    expect(JSON.stringify(inVpc.Resource)).toContain(vpc);
    expect(bySid('TagApplicationGroupsOnCreateOnly').Condition).toEqual({
      StringEquals: { 'ec2:CreateAction': 'CreateSecurityGroup', [`aws:RequestTag/${CONTROLLER_TAG}`]: CONTROLLER },
    });
    const change = bySid('ChangeOwnApplicationGroups');
    expect(actionsOf(change).sort()).toEqual([
      'ec2:AuthorizeSecurityGroupIngress',
      'ec2:DeleteSecurityGroup',
      'ec2:RevokeSecurityGroupIngress',
    ]);
    expect(change.Condition).toEqual({ StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: CONTROLLER } });
    const attach = bySid('AttachGroupsToOwnInstances');
    expect(actionsOf(attach)).toEqual(['ec2:ModifyInstanceAttribute']);
    expect(attach.Condition).toEqual({ StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: CONTROLLER } });
    // Every statement granting a group-creating or group-changing action carries a tag condition
    // but the VPC's and the shared group's, which name one resource each.
    const firewallActions = [
      'ec2:CreateSecurityGroup',
      'ec2:AuthorizeSecurityGroupIngress',
      'ec2:RevokeSecurityGroupIngress',
      'ec2:DeleteSecurityGroup',
      'ec2:ModifyInstanceAttribute',
    ];
    // The stream's provisioner does not run the firewall (shared/provisioner/reconcile-firewall.ts).
    expect([...allowedActions(roleLogicalId('provisioner'))].filter((a) => firewallActions.includes(a))).toEqual([]);
    for (const s of ss.filter((st) => actionsOf(st).some((a) => firewallActions.includes(a)))) {
      if (s.Sid === 'CreateApplicationGroupsInMachineVpc' || s.Sid === 'KeepSharedGroupOnInstances')
        expect(resourcesOf(s), s.Sid).toHaveLength(1);
      else expect(JSON.stringify(s.Condition), s.Sid).toMatch(/aws:(Resource|Request)Tag\/drover:controller/);
    }
  });

  it("lets the provisioner find the machines' VPC in its environment", () => {
    const vpc = logicalIdOf(`drover-${CONTROLLER}/Machines/Vpc/Resource`);
    for (const key of ['provisioner', 'provisionerReconcile'] as const)
      expect(resources[fnLogicalId(key)]!.Properties.Environment.Variables.VPC_ID, key).toEqual({ Ref: vpc });
  });

  it('lets the provisioner pass the agent role to EC2 and nothing else', () => {
    const pass = statementsOfRole(roleLogicalId('provisioner')).find((s) => actionsOf(s).includes('iam:PassRole'))!;
    expect(pass.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } });
    expect(pass.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(`drover-${CONTROLLER}/Machines/AgentRole/Resource`), 'Arn'] });
  });

  it("lets the provisioner and the changes function manage and tag machine queues by the controller's prefix; only the provisioner deletes them", () => {
    const prefix = machineQueuePrefix(CONTROLLER);
    expect(prefix).toBe(`drover-${CONTROLLER}-m-`);
    const queueActions = (key: FunctionKey) =>
      statementsOfRole(roleLogicalId(key))
        .filter((s) => JSON.stringify(s.Resource).includes(`:${prefix}*`))
        .flatMap(actionsOf)
        .sort();
    const ensure = ['sqs:CreateQueue', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SetQueueAttributes'];
    expect(queueActions('provisioner')).toEqual([...ensure, 'sqs:DeleteQueue', 'sqs:TagQueue'].sort());
    // TagQueue: a queue it re-creates is bound to its machine's instance at once (queue-instance-tag.ts).
    expect(queueActions('changes')).toEqual([...ensure, 'sqs:SendMessage', 'sqs:TagQueue'].sort());
    for (const key of ['api', 'cleanupSweep', 'watchdog'] as const) expect(queueActions(key)).toEqual([]);
  });

  it("lets agents only receive from their own instance's machine queue, read their bundle, and call the agent routes and no other", () => {
    const agentRole = logicalIdOf(`drover-${CONTROLLER}/Machines/AgentRole/Resource`);
    const ss = statementsOfRole(agentRole);
    expect(ss.flatMap(actionsOf).sort()).toEqual([
      'execute-api:Invoke',
      's3:GetObject',
      'sqs:DeleteMessage',
      'sqs:ReceiveMessage',
      'ssm:UpdateInstanceInformation',
      'ssmmessages:CreateControlChannel',
      'ssmmessages:CreateDataChannel',
      'ssmmessages:OpenControlChannel',
      'ssmmessages:OpenDataChannel',
    ]);
    const queues = ss.filter((st) => actionsOf(st).some((a) => a.startsWith('sqs:')));
    expect(queues).toHaveLength(1);
    expect(JSON.stringify(queues[0]!.Resource)).toContain(`:${machineQueuePrefix(CONTROLLER)}*`);
    // The queue's instance tag must be the caller's instance (queue-instance-tag.ts tags it).
    expect(queues[0]!.Condition).toEqual({ StringEquals: { [`aws:ResourceTag/${INSTANCE_TAG}`]: '${ec2:SourceInstanceARN}' } });
    const invoke = ss.filter((st) => actionsOf(st).includes('execute-api:Invoke'));
    expect(invoke).toHaveLength(1);
    expect(JSON.stringify(invoke[0]!.Resource)).toMatch(/\/\*\/\*\/v1\/agent\/\*"/);
    // The one object of the bundle, which the user data downloads with this role (user-data.ts);
    // no provisioner reads it any more: nothing is presigned for an instance.
    const bundle = ss.filter((st) => actionsOf(st).includes('s3:GetObject'));
    expect(bundle).toHaveLength(1);
    expect(JSON.stringify(bundle[0]!.Resource)).toContain(`/${built.stack.agentBundle.asset.s3ObjectKey}`);
    for (const key of ['provisioner', 'provisionerReconcile'] as const)
      expect(statementsOfRole(roleLogicalId(key)).flatMap(actionsOf)).not.toContain('s3:GetObject');
  });

  it('lets an instance reach Session Manager for ssh with no inbound port: registering instances, and no other SSM action', () => {
    const ss = statementsOfRole(logicalIdOf(`drover-${CONTROLLER}/Machines/AgentRole/Resource`));
    const register = ss.filter((st) => actionsOf(st).includes('ssm:UpdateInstanceInformation'));
    expect(register).toHaveLength(1);
    expect(actionsOf(register[0]!)).toEqual(['ssm:UpdateInstanceInformation']);
    expect(JSON.stringify(register[0]!.Resource)).toMatch(/:ec2:",\{"Ref":"AWS::Region"\},":",\{"Ref":"AWS::AccountId"\},":instance\/\*"/);
    // Not AmazonSSMManagedInstanceCore: no documents, parameters, inventory, patching or Run Command.
    expect(
      ss
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('ssm:') || a.startsWith('ec2messages:'))
        .sort(),
    ).toEqual(['ssm:UpdateInstanceInformation']);
    const role = resources[logicalIdOf(`drover-${CONTROLLER}/Machines/AgentRole/Resource`)]!;
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    // And still no ingress on the machines' group: Session Manager needs none.
    const group = resources[logicalIdOf(`drover-${CONTROLLER}/Machines/MachineSecurityGroup/Resource`)]!;
    expect(group.Properties.SecurityGroupIngress).toBeUndefined();
  });

  it("lets only the api function search logs, its own group only: debug-log reads the agents' records there", () => {
    const apiLogs = logicalIdOf(`drover-${CONTROLLER}/Functions/ApiLogs`);
    // Reading log events back, as opposed to writing them (every function, the VPC flow log).
    const reads = ['logs:FilterLogEvents', 'logs:GetLogEvents', 'logs:StartQuery', 'logs:StartLiveTail'];
    const searching = statements().filter((s) => actionsOf(s.statement).some((a) => reads.includes(a)));
    expect(searching.flatMap((s) => s.roles)).toEqual([roleLogicalId('api')]);
    expect(searching.map((s) => s.statement)).toEqual([
      { Sid: 'SearchOwnLogs', Effect: 'Allow', Action: 'logs:FilterLogEvents', Resource: { 'Fn::GetAtt': [apiLogs, 'Arn'] } },
    ]);
  });

  it("keeps each role's inline policies within IAM's 10,240 characters (the instance-type list made the provisioner's longer)", () => {
    // Measured on the template, where an ARN is a Fn::Join of its parts: longer than the ARN
    // IAM stores, so a pass here is a pass there.
    const size = new Map<string, number>();
    for (const [, r] of ofType('AWS::IAM::Policy'))
      for (const { Ref: role } of (r.Properties.Roles ?? []) as { Ref: string }[])
        size.set(role, (size.get(role) ?? 0) + JSON.stringify(r.Properties.PolicyDocument).length);
    expect(size.get(roleLogicalId('provisioner'))).toBeGreaterThan(0);
    for (const [role, chars] of size) expect(chars, role).toBeLessThan(10_240);
  });

  it('names every statement of a policy differently (IAM refuses duplicate Sids)', () => {
    for (const [id, r] of [...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')]) {
      const sids = (r.Properties.PolicyDocument.Statement as Statement[]).map((s) => s.Sid).filter(Boolean);
      expect(new Set(sids).size, id).toBe(sids.length);
    }
  });

  it('gives functions no AWS managed policy', () => {
    for (const [, role] of ofType('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);
  });
});

describe('API', () => {
  it('tells the api function the log group debug-log reads: its own, kept a month', () => {
    const apiLogs = logicalIdOf(`drover-${CONTROLLER}/Functions/ApiLogs`);
    const fn = resources[fnLogicalId('api')]!.Properties;
    expect(fn.Environment.Variables.DEBUG_LOG_GROUP).toEqual({ Ref: apiLogs });
    expect(fn.LoggingConfig.LogGroup).toEqual({ Ref: apiLogs });
    expect(resources[apiLogs]!.Properties.RetentionInDays).toBe(30);
    for (const key of Object.keys(FUNCTION_SPECS) as FunctionKey[])
      if (key !== 'api') expect(resources[fnLogicalId(key)]!.Properties.Environment.Variables.DEBUG_LOG_GROUP).toBeUndefined();
  });

  const routes = () => Object.fromEntries(ofType('AWS::ApiGatewayV2::Route').map(([, r]) => [r.Properties.RouteKey, r.Properties]));

  it('authorizes user routes with IAM', () => {
    expect(routes()['ANY /v1/{proxy+}']!.AuthorizationType).toBe('AWS_IAM');
  });

  it('authorizes agent routes with IAM too: no route is open to an unsigned caller', () => {
    for (const [key, route] of Object.entries(routes()))
      expect((route as { AuthorizationType: string }).AuthorizationType, key).toBe('AWS_IAM');
  });

  it('tells the api function the agent role, which it maps callers to machines by', () => {
    const agentRole = logicalIdOf(`drover-${CONTROLLER}/Machines/AgentRole/Resource`);
    expect(resources[fnLogicalId('api')]!.Properties.Environment.Variables.AGENT_ROLE_NAME).toEqual({ Ref: agentRole });
  });

  it('has no other route', () => {
    expect(Object.keys(routes()).sort()).toEqual(['ANY /v1/agent/{proxy+}', 'ANY /v1/{proxy+}']);
  });

  it('logs access and throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] },
        Format: Match.stringLikeRegexp('\\$context\\.requestId'),
      },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
  });

  it('throttles agents and users apart: neither route shares its budget with the other', () => {
    const [, stage] = ofType('AWS::ApiGatewayV2::Stage')[0]!;
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    expect(Object.keys(stage.Properties.RouteSettings).sort()).toEqual(routes.sort());
    expect(stage.Properties.RouteSettings[`ANY ${AGENT_ROUTE}`]).toEqual({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 });
    expect(stage.Properties.RouteSettings[`ANY ${USER_ROUTE}`]).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    // Created after the routes its settings name, or CloudFormation refuses it.
    const [stageId] = ofType('AWS::ApiGatewayV2::Stage')[0]!;
    for (const [routeId] of ofType('AWS::ApiGatewayV2::Route')) expect([resources[stageId]!.DependsOn].flat()).toContain(routeId);
  });

  it('offers users a policy for the user routes only', () => {
    const policy = ofType('AWS::IAM::ManagedPolicy')[0]![1].Properties.PolicyDocument.Statement as Statement[];
    expect(policy.flatMap(actionsOf)).toEqual(['execute-api:Invoke']);
    expect(JSON.stringify(policy[0]!.Resource)).toContain('/*/*/v1/*');
  });
});

describe('machines', () => {
  it("require IMDSv2, one hop, with the agent instance profile and the machines' security group", () => {
    const data = ofType('AWS::EC2::LaunchTemplate')[0]![1].Properties.LaunchTemplateData as Json;
    expect(data.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpEndpoint: 'enabled', HttpPutResponseHopLimit: 1 });
    expect(data.IamInstanceProfile.Arn['Fn::GetAtt'][0]).toBe(logicalIdOf(`drover-${CONTROLLER}/Machines/AgentProfile`));
    expect(data.SecurityGroupIds).toHaveLength(1);
  });

  it('have a shared security group with no ingress: exposed applications get groups of their own at run time', () => {
    const sg = ofType('AWS::EC2::SecurityGroup')[0]![1].Properties;
    expect(sg.SecurityGroupIngress ?? []).toEqual([]);
    expect(ofType('AWS::EC2::SecurityGroupIngress')).toEqual([]);
  });

  it('cost nothing at rest in the network: public subnets, no NAT gateway', () => {
    expect(ofType('AWS::EC2::NatGateway')).toEqual([]);
    expect(ofType('AWS::EC2::Subnet').every(([, s]) => s.Properties.MapPublicIpOnLaunch === true)).toBe(true);
  });

  it('write only variables functions/environment.ts names', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function'))
      for (const name of Object.keys(fn.Properties.Environment?.Variables ?? {}))
        expect(Object.keys(VARIABLES), `${id}: ${name}`).toContain(name);
  });

  it('give the provisioner everything its ec2 provider reads from the environment', () => {
    const env = resources[fnLogicalId('provisioner')]!.Properties.Environment.Variables as Json;
    for (const name of [
      'TABLE_NAME',
      'CONTROLLER_ID',
      'API_URL',
      'AGENT_BUNDLE_BUCKET',
      'AGENT_BUNDLE_KEY',
      'AGENT_BUNDLE_SHA256',
      'DEPLOYMENT_ID',
      'SUBNET_IDS',
      'SECURITY_GROUP_IDS',
      'LAUNCH_TEMPLATE_ID',
      'INSTANCE_PROFILE_ARN',
    ])
      expect(env[name], name).toBeDefined();
    expect(env.CONTROLLER_ID).toBe(CONTROLLER);
    expect(env.AGENT_BUNDLE_SHA256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('give both provisioner functions the deployment id: the UUID that ends the stack id', () => {
    for (const key of ['provisioner', 'provisionerReconcile'] as const)
      expect(resources[fnLogicalId(key)]!.Properties.Environment.Variables.DEPLOYMENT_ID, key).toEqual(DEPLOYMENT_ID);
  });

  it('give both provisioner functions every public subnet of the machine network, one per zone', () => {
    const subnets = ofType('AWS::EC2::Subnet');
    expect(subnets.length).toBeGreaterThanOrEqual(2);
    expect(new Set(subnets.map(([, s]) => JSON.stringify(s.Properties.AvailabilityZone))).size).toBe(subnets.length);
    for (const key of ['provisioner', 'provisionerReconcile'] as const)
      expect(resources[fnLogicalId(key)]!.Properties.Environment.Variables.SUBNET_IDS, key).toEqual({
        'Fn::Join': [',', subnets.map(([id]) => ({ Ref: id }))],
      });
  });

  it('hold no secret: agents are identified by their instance role, and nothing secret reaches an instance', () => {
    expect(ofType('AWS::SecretsManager::Secret')).toEqual([]);
    expect(statements().filter((s) => actionsOf(s.statement).some((a) => a.startsWith('secretsmanager:')))).toEqual([]);
    for (const [id, fn] of ofType('AWS::Lambda::Function'))
      expect(JSON.stringify(fn.Properties.Environment ?? {}), id).not.toMatch(/CREDENTIAL|SECRET/);
  });

  it('have the hint dead-letter queue under the name machine-queues.ts gives it, encrypted and TLS-only', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { QueueName: `drover-${CONTROLLER}-dlq`, SqsManagedSseEnabled: true });
  });

  it('hold the dead-letter queue to the TLS-only statement machine-queues.ts gives the queues it makes', () => {
    const dlq = logicalIdOf(`drover-${CONTROLLER}/Machines/HintDeadLetters/Resource`);
    const policy = ofType('AWS::SQS::QueuePolicy').find(([, p]) => JSON.stringify(p.Properties.Queues).includes(dlq));
    const statement = { ...tlsOnlyStatement('arn'), Resource: { 'Fn::GetAtt': [dlq, 'Arn'] } };
    expect(policy?.[1].Properties.PolicyDocument.Statement).toEqual([statement]);
  });
});

describe('stack deletion with machines running', () => {
  const tearDown = () => {
    const found = ofType('Custom::DroverTearDown');
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const dependsOn = (id: string) => [resources[id]!.DependsOn ?? []].flat() as string[];

  it('tears down before the network goes, and after whatever could start an instance', () => {
    const [id, resource] = tearDown();
    expect(resource.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [fnLogicalId('teardown'), 'Arn'] });
    // Deleted before the machines' security group and subnets: it depends on them.
    for (const [sg] of ofType('AWS::EC2::SecurityGroup')) expect(dependsOn(id), sg).toContain(sg);
    for (const [subnet] of ofType('AWS::EC2::Subnet')) expect(dependsOn(id), subnet).toContain(subnet);
    // Deleted after the stream mappings and the schedules: they depend on it.
    for (const [mapping] of ofType('AWS::Lambda::EventSourceMapping')) expect(dependsOn(mapping), mapping).toContain(id);
    for (const [rule] of ofType('AWS::Events::Rule')) expect(dependsOn(rule), rule).toContain(id);
  });

  it("may terminate only the controller's instances and delete only its application groups and machine queues", () => {
    const ss = statementsOfRole(roleLogicalId('teardown'));
    const groups = ss.filter((st) => actionsOf(st).includes('ec2:DeleteSecurityGroup'));
    expect(groups).toHaveLength(1);
    expect(groups[0]!.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/drover:controller': CONTROLLER } });
    const terminate = ss.filter((st) => actionsOf(st).includes('ec2:TerminateInstances'));
    expect(terminate).toHaveLength(1);
    expect(terminate[0]!.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/drover:controller': CONTROLLER } });
    const deletes = ss.filter((st) => actionsOf(st).includes('sqs:DeleteQueue'));
    expect(deletes.flatMap(actionsOf)).toEqual(['sqs:DeleteQueue']);
    expect(JSON.stringify(deletes.map((st) => st.Resource))).toContain(`:${machineQueuePrefix(CONTROLLER)}*`);
    // ListQueues takes no resource but "*": on the queue prefix it is denied, and the stack's
    // deletion fails (test/infra/teardown-grant.test.ts runs the tear-down against this grant).
    const lists = ss.filter((st) => actionsOf(st).includes('sqs:ListQueues'));
    expect(lists.map((st) => [actionsOf(st), st.Resource])).toEqual([[['sqs:ListQueues'], '*']]);
    expect(resources[fnLogicalId('teardown')]!.Properties.Environment.Variables.DEPLOYMENT_ID).toEqual(DEPLOYMENT_ID);
  });
});

describe('charm store and queues', () => {
  it('encrypt the bucket, block public access and refuse anything but TLS', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: [{ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }] },
    });
    const bucket = ofType('AWS::S3::Bucket')[0]![1];
    expect(bucket.DeletionPolicy).toBe('Retain');
  });

  it('expire uploads after a day, and never a charm archive', () => {
    const buckets = ofType('AWS::S3::Bucket');
    expect(buckets).toHaveLength(1);
    expect(buckets[0]![1].Properties.LifecycleConfiguration).toEqual({
      Rules: [{ Id: 'ExpireUploads', Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' }],
    });
  });

  it('encrypt every queue and refuse anything but TLS', () => {
    for (const [, q] of ofType('AWS::SQS::Queue')) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    const policies = ofType('AWS::SQS::QueuePolicy');
    expect(policies).toHaveLength(ofType('AWS::SQS::Queue').length);
    for (const [, p] of policies) expect(JSON.stringify(p.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });
});

describe('functions', () => {
  it('reserve no concurrency, which accounts with a quota of 10 or 50 refuse, and retry no scheduled run asynchronously', () => {
    // One run at a time comes from a lease in the table (test/integration/run-lease.test.ts).
    for (const key of ['provisionerReconcile', 'cleanupSweep', 'watchdog'] as const) {
      expect(resources[fnLogicalId(key)]!.Properties.ReservedConcurrentExecutions, key).toBeUndefined();
      const invokeConfig = ofType('AWS::Lambda::EventInvokeConfig').find(([, c]) =>
        JSON.stringify(c.Properties.FunctionName).includes(fnLogicalId(key)),
      );
      expect(invokeConfig?.[1].Properties.MaximumRetryAttempts, key).toBe(0);
      // Not Lambda's 6 hours: a run older than its interval is superseded, and noted as failed.
      expect(invokeConfig?.[1].Properties.MaximumEventAgeInSeconds, key).toBe(SCHEDULES[key].toSeconds());
      expect(JSON.stringify(invokeConfig?.[1].Properties.DestinationConfig.OnFailure), key).toContain('ScheduledFailures');
    }
    // What the stream and the API drive is never capped this way.
    for (const key of ['api', 'provisioner', 'changes'] as const)
      expect(resources[fnLogicalId(key)]!.Properties.ReservedConcurrentExecutions, key).toBeUndefined();
  });

  it('run on Node.js 22 on arm64, with Powertools configured for the drover namespace', () => {
    const fns = ofType('AWS::Lambda::Function');
    expect(fns).toHaveLength(Object.keys(FUNCTION_SPECS).length);
    for (const [id, fn] of fns) {
      expect(fn.Properties.Runtime, id).toBe('nodejs22.x');
      expect(fn.Properties.Architectures, id).toEqual(['arm64']);
      expect(fn.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE).toBe('drover');
      expect(fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME).toEqual(expect.any(String));
    }
  });

  it('call handlers their entry modules export', async () => {
    for (const [key, spec] of Object.entries(FUNCTION_SPECS) as [FunctionKey, (typeof FUNCTION_SPECS)[FunctionKey]][]) {
      expect(resources[fnLogicalId(key)]!.Properties.Handler).toBe(`index.${spec.handler}`);
      const module = (await import(join(REPO_ROOT, spec.entry))) as Record<string, unknown>;
      expect(typeof module[spec.handler], `${spec.entry} exports ${spec.handler}`).toBe('function');
    }
  });

  it('load from their bundles as ES modules and export their handlers, with no node_modules beside them', async () => {
    // Nothing is left to the runtime, the AWS SDK included: the assets hold no node_modules.
    expect(existsSync(join(assembly.directory, 'node_modules'))).toBe(false);
    for (const [key, spec] of Object.entries(FUNCTION_SPECS) as [FunctionKey, (typeof FUNCTION_SPECS)[FunctionKey]][]) {
      const module = (await import(pathToFileURL(join(assetDirOf(key), 'index.mjs')).href)) as Record<string, unknown>;
      expect(typeof module[spec.handler], `${key}: index.${spec.handler}`).toBe('function');
    }
  });

  it('ship a self-contained machine agent: it starts with no node_modules beside it', () => {
    const agent = built.stack.agentBundle;
    const dir = join(workDir, 'agent-extracted');
    mkdirSync(dir);
    execFileSync('tar', ['-xzf', join(assembly.directory, `asset.${agent.asset.assetHash}.tgz`), '-C', dir]);
    // Without its environment the agent stops at once; what matters is that every import resolved.
    const run = spawnSync(process.execPath, [join(dir, 'machine-agent.js')], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)|SyntaxError/);
    expect(run.signal).toBeNull();
  });

  it("carry the AWS SDK versions package-lock.json pins, bundled rather than the runtime's", () => {
    const pinned = (name: string) =>
      (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    // The clients each function's code sends commands with (test/support/sdk-calls.ts reads the same code).
    const clients: Record<FunctionKey, string[]> = {
      api: ['client-dynamodb', 'client-s3', 'client-cloudwatch-logs'],
      provisioner: ['client-dynamodb', 'client-ec2', 'client-sqs'],
      provisionerReconcile: ['client-dynamodb', 'client-ec2', 'client-sqs'],
      changes: ['client-dynamodb', 'client-sqs'],
      cleanupSweep: ['client-dynamodb'],
      watchdog: ['client-dynamodb'],
      teardown: ['client-ec2', 'client-sqs'],
    };
    for (const [key, names] of Object.entries(clients) as [FunctionKey, string[]][]) {
      const bundle = readFileSync(join(assetDirOf(key), 'index.mjs'), 'utf8');
      // No import left for the runtime to resolve...
      expect(bundle, key).not.toMatch(/from\s*"@aws-sdk\//);
      expect(bundle, key).not.toMatch(/import\(\s*"@aws-sdk\//);
      // ...and each client's own package information, the pinned version in it.
      for (const name of names)
        expect(bundle, `${key}: ${name}`).toContain(`name:"@aws-sdk/${name}",version:"${pinned(`@aws-sdk/${name}`)}"`);
    }
  });

  it('are each bundled under 1.5 MB, the AWS SDK included', () => {
    const rows: string[] = [];
    for (const key of Object.keys(FUNCTION_SPECS) as FunctionKey[]) {
      const dir = assetDirOf(key);
      const bundle = statSync(join(dir, 'index.mjs')).size;
      const map = statSync(join(dir, 'index.mjs.map')).size;
      rows.push(`${key.padEnd(22)} ${(bundle / 1024).toFixed(1).padStart(8)} KiB  (+ source map ${(map / 1024).toFixed(1)} KiB)`);
      expect(bundle, key).toBeLessThan(1.5 * MB);
    }
    const agent = built.stack.agentBundle;
    rows.push(`${'agent (machine-agent.js)'.padEnd(22)} ${(agent.scriptBytes / 1024).toFixed(1).padStart(8)} KiB`);
    expect(agent.scriptBytes).toBeLessThan(5 * MB);
    console.log(`bundle sizes:\n  ${rows.join('\n  ')}`);
  });
});

describe('schedules, observability and outputs', () => {
  it("schedule the watchdog, the provisioner's reconcile and the cleanup sweep", () => {
    const targets = ofType('AWS::Events::Rule').map(([, r]) => r.Properties.Targets[0].Arn['Fn::GetAtt'][0]);
    expect(targets.sort()).toEqual([fnLogicalId('watchdog'), fnLogicalId('provisionerReconcile'), fnLogicalId('cleanupSweep')].sort());
  });

  it('sweep every minute, so a run-out leadership lease is freed within a minute', () => {
    const rules = ofType('AWS::Events::Rule').map(([, r]) => r.Properties);
    const sweepRule = rules.find((r) => r.Targets[0].Arn['Fn::GetAtt'][0] === fnLogicalId('cleanupSweep'));
    expect(sweepRule?.ScheduleExpression).toBe('rate(1 minute)');
  });

  it("alarm on stuck entities from the watchdog's metrics", () => {
    for (const metric of ['DyingTooLong', 'ProvisioningErrors'])
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'drover',
        MetricName: metric,
        // The controller's own: another controller in this account publishes the same names.
        // Exactly the set the watchdog publishes with (test/integration/watchdog.test.ts).
        Dimensions: [
          { Name: 'controller', Value: CONTROLLER },
          { Name: 'service', Value: 'watchdog' },
        ],
        AlarmActions: [Match.anyValue()],
      });
  });

  it('alarm when the watchdog has not run: its invocations, no data counting as an alarm', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnLogicalId('watchdog') } }],
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
      AlarmActions: [Match.anyValue()],
    });
  });

  it("alarm on any function's errors and throttles, and on the API's 5xx", () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    for (const metricName of ['Errors', 'Throttles']) {
      const alarm = alarms.find((a) => (a.Metrics as Json[] | undefined)?.some((m) => m.MetricStat?.Metric.MetricName === metricName));
      const read = (alarm!.Metrics as Json[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric.Dimensions[0].Value);
      expect(read, metricName).toEqual(
        expect.arrayContaining(Object.keys(FUNCTION_SPECS).map((k) => ({ Ref: fnLogicalId(k as FunctionKey) }))),
      );
      expect(read, metricName).toHaveLength(Object.keys(FUNCTION_SPECS).length);
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/ApiGateway', MetricName: '5xx' });
  });

  it("alarm on each stream consumer's iterator age and on the failure destination", () => {
    for (const { name: key } of STREAM_CONSUMERS)
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnLogicalId(key) } }],
      });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [logicalIdOf(`drover-${CONTROLLER}/StreamConsumers/StreamFailures/Resource`), 'QueueName'] },
        },
      ],
    });
  });

  it('draw the dashboard', () => {
    const body = JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody);
    for (const text of ['DyingTooLong', 'ProvisioningErrors', 'IteratorAge', 'ApproximateNumberOfMessagesVisible', 'Errors', 'Duration'])
      expect(body).toContain(text);
    // Stuck entities as a table, one row per entity, with what holds it and what to run.
    expect(body).toContain(
      'stats latest(life) as life, max(ageSeconds) as seconds, latest(blockedBy) as blocked_by, latest(remedy) as remedy',
    );
    expect(body).toContain('by model, entity');
    expect(body).toContain('\\"view\\":\\"table\\"');
  });

  it('save the Logs Insights queries an on-call engineer starts from, each on the group whose lines it reads', () => {
    const queries = Object.fromEntries(ofType('AWS::Logs::QueryDefinition').map(([, q]) => [q.Properties.Name, q.Properties]));
    expect(Object.keys(queries).sort()).toEqual(
      ['agent requests refused', 'hook errors by unit', 'stuck entities with what holds them'].map((t) => `drover/${CONTROLLER}/${t}`),
    );
    const groupOf = (title: string) => queries[`drover/${CONTROLLER}/${title}`].LogGroupNames;
    expect(groupOf('stuck entities with what holds them')).toEqual([
      { Ref: logicalIdOf(`drover-${CONTROLLER}/Functions/WatchdogLogs/Resource`) },
    ]);
    expect(groupOf('hook errors by unit')).toEqual([{ Ref: logicalIdOf(`drover-${CONTROLLER}/Functions/ApiLogs/Resource`) }]);
    expect(groupOf('agent requests refused')).toEqual([{ Ref: logicalIdOf(`drover-${CONTROLLER}/Api/AccessLogs/Resource`) }]);
  });

  it('output the name of every log group CloudFormation named', () => {
    const outputs = template.toJSON().Outputs as Json;
    const named = Object.values(outputs).map((o) => JSON.stringify(o.Value));
    for (const [id] of ofType('AWS::Logs::LogGroup')) {
      if (id.startsWith('MachinesFlowLogs')) continue;
      expect(named, id).toContain(JSON.stringify({ Ref: id }));
    }
  });

  it('output the API URL, the region and the exact drover register command', () => {
    const outputs = template.toJSON().Outputs as Json;
    expect(outputs.ApiUrl.Value).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ApiHttpApi/), 'ApiEndpoint'] });
    expect(outputs.Region.Value).toEqual({ Ref: 'AWS::Region' });
    // npx drover register <api-url> <controller> --region <region> (cli/commands/controllers.ts)
    expect(outputs.RegisterCommand.Value).toEqual({
      'Fn::Join': [
        '',
        [
          'npx drover register ',
          { 'Fn::GetAtt': [expect.stringMatching(/^ApiHttpApi/), 'ApiEndpoint'] },
          ` ${CONTROLLER} --region `,
          { Ref: 'AWS::Region' },
        ],
      ],
    });
    expect(outputs.UserPolicyArn).toBeDefined();
  });
});
