// Every IAM role of the stack, with the requests made with it: for a function or the agent, each
// SDK command its code sends (test/support/sdk-calls.ts reads them from the code) as the IAM
// action and resource AWS authorizes it as, and what AWS itself does with the role (Lambda writes
// the function's logs, reads the stream, sends failed runs to a queue). One line per request, a
// list per role, so a new grant is a new line: test/infra/iam-simulation.test.ts proves each
// allowed (or refused, where the code expects a refusal), and every grant used by some line.
// A service that acts with a role (an agent installed on instances, say) goes in SERVICES.
// Which action and resource each command is authorized as:
// https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FunctionKey } from '../../infra/functions.js';
import type { DroverStack } from '../../infra/stack.js';
import { INSTANCE_TAG } from '#shared/messaging/queue-instance-tag.js';
import { deadLetterQueueName, queueName } from '#shared/messaging/queue-names.js';
import { CANONICAL_OWNER_ID } from '#shared/provider/ec2/images.js';
import { EC2_INSTANCE_TYPES } from '#shared/provider/ec2/instance-types.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG } from '#shared/provider/ec2/tags.js';
import { INDEX, runLeaseKey } from '#shared/state/engine/keys.js';
import { DEPLOYMENT_ID, ec2Arn, queueArn, resolve, type IamRequest, type SimEnv } from '../support/iam-simulation.js';
import type { CodeEntry } from '../support/sdk-calls.js';

/** Who sends a request: an SDK command or signer of the role's code, or AWS acting with the role. */
export type Sender = string;
/** Who else sends requests with a role (AWS's services, the CLI's users): not read from drover's code. */
export const SERVICES = ['lambda', 'ec2 instance boot', 'ssm agent', 'vpc-flow-logs', 'drover CLI user'] as const;

export interface RoleRequest extends IamRequest {
  by: Sender;
  /** The code sends it and expects it refused (why): the role must not allow it. */
  refusedBecause?: string;
}

/** The resources requests name, resolved from the synthesized template for one partition. */
export interface World {
  env: SimEnv;
  controllerId: string;
  table: string;
  indexes: string[];
  stream: string;
  bucket: string;
  machineQueue: string;
  deadLetterQueue: string;
  streamFailures: string;
  scheduledFailures: string;
  /** A log stream in the function's own log group. */
  logStream: (key: FunctionKey) => string;
  flowLogStream: string;
  agentRole: string;
  agentBundle: string;
  agentRoute: string;
  userRoute: string;
  launchTemplate: string;
  sharedGroup: string;
  subnets: string[];
  vpc: string;
}

/** Resolves the stack's own tokens (an ARN, an id) to what they are in `env`. */
export function worldOf(stack: DroverStack, resources: Record<string, any>, env: SimEnv): World {
  const { controllerId } = stack;
  const concrete = (value: unknown) => resolve(stack.resolve(value), resources, env) as string;
  const inLogGroup = (group: logs.ILogGroup) => concrete(group.logGroupArn).replace(/:\*$/, ':log-stream:2026/11/29/[$LATEST]0a1b');
  const table = concrete(stack.state.table.tableArn);
  const api = stack.api.httpApi.apiId;
  const executeApi = (path: string) =>
    `arn:${env.partition}:execute-api:${env.region}:${env.account}:${concrete(api)}/$default/POST${path}`;
  const flowLogs = stack.machines.node.findChild('FlowLogs') as logs.LogGroup;
  return {
    env,
    controllerId,
    table,
    indexes: Object.values(INDEX).map((name) => `${table}/index/${name}`),
    stream: concrete(stack.state.table.tableStreamArn),
    bucket: concrete(stack.charms.bucket.bucketArn),
    machineQueue: queueArn(queueName(controllerId, 'default', '0'), env),
    deadLetterQueue: queueArn(deadLetterQueueName(controllerId), env),
    streamFailures: concrete(stack.consumers.failureQueue.queueArn),
    scheduledFailures: concrete(stack.functions.scheduledFailures.queueArn),
    logStream: (key) => inLogGroup(stack.functions.logGroups[key]),
    flowLogStream: inLogGroup(flowLogs),
    agentRole: concrete(stack.machines.agentRole.roleArn),
    agentBundle: concrete(stack.agentBundle.asset.bucket.arnForObjects(stack.agentBundle.asset.s3ObjectKey)),
    agentRoute: executeApi('/v1/agent/view'),
    userRoute: executeApi('/v1/status'),
    launchTemplate: ec2Arn('launch-template', concrete(stack.machines.launchTemplate.launchTemplateId), env),
    sharedGroup: ec2Arn('security-group', concrete(stack.machines.securityGroup.securityGroupId), env),
    subnets: stack.machines.vpc.publicSubnets.map((s) => ec2Arn('subnet', concrete(s.subnetId), env)),
    vpc: ec2Arn('vpc', concrete(stack.machines.vpc.vpcId), env),
  };
}

export interface RoleSpec {
  /** The role (its default child is the template's AWS::IAM::Role). */
  role: (stack: DroverStack) => Construct;
  /** The code that sends requests with the role; none where only AWS uses it. */
  code?: CodeEntry;
  requests: (w: World) => RoleRequest[];
  /** SDK commands the bundled code refers to but never sends with this role, and why. */
  notSent?: Record<string, string>;
}

const req = (by: Sender, action: string, resource: string, context?: IamRequest['context']): RoleRequest => ({
  by,
  action,
  resource,
  ...(context ? { context } : {}),
});

/** The item actions a DynamoDB document-client command is authorized as. */
const TRANSACT_WRITE = ['PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'].map((a) => `dynamodb:${a}`);

// Lambda's own use of every function's role: writing the function's log.
const writesLogs = (w: World, key: FunctionKey) => [
  req('lambda', 'logs:CreateLogStream', w.logStream(key)),
  req('lambda', 'logs:PutLogEvents', w.logStream(key)),
];
// The event source mapping of a stream consumer: reads the table's stream, notes failed batches.
const readsStream = (w: World) => [
  req('lambda', 'dynamodb:DescribeStream', w.stream),
  req('lambda', 'dynamodb:GetRecords', w.stream),
  req('lambda', 'dynamodb:GetShardIterator', w.stream),
  req('lambda', 'dynamodb:ListStreams', '*'),
  req('lambda', 'sqs:SendMessage', w.streamFailures),
];
// A scheduled function's asynchronous failure destination.
const notesFailedRuns = (w: World) => [req('lambda', 'sqs:SendMessage', w.scheduledFailures)];

// The state table, command by command (shared/state/engine/): reads, writes and the transaction.
const reads = (w: World) => [
  req('GetCommand', 'dynamodb:GetItem', w.table),
  req('BatchGetCommand', 'dynamodb:BatchGetItem', w.table),
  ...[w.table, ...w.indexes].map((resource) => req('QueryCommand', 'dynamodb:Query', resource)),
];
const transactions = (w: World) => TRANSACT_WRITE.map((action) => req('TransactWriteCommand', action, w.table));

// The run lease of a scheduled job (shared/state/operations/run-lease.ts), by its partition key.
const runLease = (w: World, job: string) => [
  req('PutCommand', 'dynamodb:PutItem', w.table, { 'dynamodb:LeadingKeys': [runLeaseKey(job).pk] }),
  req('DeleteCommand', 'dynamodb:DeleteItem', w.table, { 'dynamodb:LeadingKeys': [runLeaseKey(job).pk] }),
];

// A machine queue and the controller's dead-letter queue, ensured (shared/messaging/machine-queues.ts).
const ensuresQueues = (w: World) =>
  [w.machineQueue, w.deadLetterQueue].flatMap((queue) => [
    req('CreateQueueCommand', 'sqs:CreateQueue', queue),
    req('GetQueueUrlCommand', 'sqs:GetQueueUrl', queue),
    req('GetQueueAttributesCommand', 'sqs:GetQueueAttributes', queue),
    req('SetQueueAttributesCommand', 'sqs:SetQueueAttributes', queue),
  ]);

const ownTag = (w: World) => ({ [`aws:ResourceTag/${CONTROLLER_TAG}`]: w.controllerId });
const launchTags = (w: World) => ({
  [`aws:RequestTag/${CONTROLLER_TAG}`]: w.controllerId,
  [`aws:RequestTag/${DEPLOYMENT_TAG}`]: DEPLOYMENT_ID,
});
const instance = (w: World) => ec2Arn('instance', 'i-0a1b2c3d4e5f60718', w.env);
const applicationGroup = (w: World) => ec2Arn('security-group', 'sg-0a1b2c3d4e5f60718', w.env);
const storageVolume = (w: World) => ec2Arn('volume', 'vol-0a1b2c3d4e5f60718', w.env);

// The provisioner starts and stops instances (shared/provider/ec2/ec2-provider.ts), makes and
// deletes storage volumes, and manages machine queues; the scheduled reconcile also runs the firewall.
const provisions = (w: World) => [
  // RunInstances is authorized on every resource it names or creates.
  req('RunInstancesCommand', 'ec2:RunInstances', ec2Arn('instance', '*', w.env), {
    ...launchTags(w),
    'ec2:InstanceType': EC2_INSTANCE_TYPES[0]!.name,
    'ec2:MetadataHttpTokens': 'required',
  }),
  req('RunInstancesCommand', 'ec2:RunInstances', ec2Arn('volume', '*', w.env), launchTags(w)),
  req('RunInstancesCommand', 'ec2:RunInstances', w.launchTemplate),
  req('RunInstancesCommand', 'ec2:RunInstances', w.sharedGroup),
  ...w.subnets.map((subnet) => req('RunInstancesCommand', 'ec2:RunInstances', subnet)),
  req('RunInstancesCommand', 'ec2:RunInstances', ec2Arn('network-interface', '*', w.env)),
  req('RunInstancesCommand', 'ec2:RunInstances', `arn:${w.env.partition}:ec2:${w.env.region}::image/ami-0a1b2c3d4e5f60718`, {
    'ec2:Owner': CANONICAL_OWNER_ID,
  }),
  req('RunInstancesCommand', 'ec2:CreateTags', ec2Arn('instance', '*', w.env), { 'ec2:CreateAction': 'RunInstances' }),
  req('RunInstancesCommand', 'ec2:CreateTags', ec2Arn('volume', '*', w.env), { 'ec2:CreateAction': 'RunInstances' }),
  req('RunInstancesCommand', 'iam:PassRole', w.agentRole, { 'iam:PassedToService': 'ec2.amazonaws.com' }),
  req('DescribeInstancesCommand', 'ec2:DescribeInstances', '*'),
  req('DescribeImagesCommand', 'ec2:DescribeImages', '*'),
  req('DescribeSubnetsCommand', 'ec2:DescribeSubnets', '*'),
  req('TerminateInstancesCommand', 'ec2:TerminateInstances', instance(w), ownTag(w)),
  // The ebs pool's volumes (shared/provider/ec2/volumes.ts): made tagged and encrypted, attached
  // to and detached from the controller's instances, deleted, listed.
  req('CreateVolumeCommand', 'ec2:CreateVolume', ec2Arn('volume', '*', w.env), {
    ...launchTags(w),
    'ec2:VolumeType': 'gp3',
    'ec2:Encrypted': 'true',
  }),
  req('CreateVolumeCommand', 'ec2:CreateTags', ec2Arn('volume', '*', w.env), {
    'ec2:CreateAction': 'CreateVolume',
    [`aws:RequestTag/${CONTROLLER_TAG}`]: w.controllerId,
  }),
  ...['AttachVolume', 'DetachVolume'].flatMap((action) =>
    [storageVolume(w), instance(w)].map((resource) => req(`${action}Command`, `ec2:${action}`, resource, ownTag(w))),
  ),
  req('DeleteVolumeCommand', 'ec2:DeleteVolume', storageVolume(w), ownTag(w)),
  req('DescribeVolumesCommand', 'ec2:DescribeVolumes', '*'),
  ...ensuresQueues(w),
  req('TagQueueCommand', 'sqs:TagQueue', w.machineQueue),
  req('DeleteQueueCommand', 'sqs:DeleteQueue', w.machineQueue),
];

// The firewall (shared/provider/ec2/firewall.ts, application-groups.ts): the scheduled reconcile only.
const FIREWALL_COMMANDS = [
  'AuthorizeSecurityGroupIngressCommand',
  'CreateSecurityGroupCommand',
  'DeleteSecurityGroupCommand',
  'DescribeSecurityGroupsCommand',
  'ModifyInstanceAttributeCommand',
  'RevokeSecurityGroupIngressCommand',
];
const firewall = (w: World) => [
  req('DescribeSecurityGroupsCommand', 'ec2:DescribeSecurityGroups', '*'),
  req('CreateSecurityGroupCommand', 'ec2:CreateSecurityGroup', applicationGroup(w), launchTags(w)),
  req('CreateSecurityGroupCommand', 'ec2:CreateSecurityGroup', w.vpc),
  req('CreateSecurityGroupCommand', 'ec2:CreateTags', applicationGroup(w), {
    'ec2:CreateAction': 'CreateSecurityGroup',
    [`aws:RequestTag/${CONTROLLER_TAG}`]: w.controllerId,
  }),
  req('AuthorizeSecurityGroupIngressCommand', 'ec2:AuthorizeSecurityGroupIngress', applicationGroup(w), ownTag(w)),
  req('RevokeSecurityGroupIngressCommand', 'ec2:RevokeSecurityGroupIngress', applicationGroup(w), ownTag(w)),
  req('DeleteSecurityGroupCommand', 'ec2:DeleteSecurityGroup', applicationGroup(w), ownTag(w)),
  req('ModifyInstanceAttributeCommand', 'ec2:ModifyInstanceAttribute', instance(w), ownTag(w)),
  req('ModifyInstanceAttributeCommand', 'ec2:ModifyInstanceAttribute', applicationGroup(w), ownTag(w)),
  req('ModifyInstanceAttributeCommand', 'ec2:ModifyInstanceAttribute', w.sharedGroup),
];

const functionRole = (key: FunctionKey) => (stack: DroverStack) => stack.functions.roles[key];

export const ROLES: Record<string, RoleSpec> = {
  api: {
    role: functionRole('api'),
    code: { entry: 'functions/api/handler.ts', handler: 'handler' },
    requests: (w) => [
      ...writesLogs(w, 'api'),
      ...reads(w),
      ...transactions(w),
      req('UpdateCommand', 'dynamodb:UpdateItem', w.table),
      req('PutCommand', 'dynamodb:PutItem', w.table),
      // Charm archives (shared/charmstore/s3-charm-store.ts): stored, read, and uploads checked and copied.
      req('PutObjectCommand', 's3:PutObject', `${w.bucket}/charms/0a1b.tar.gz`),
      req('GetObjectCommand', 's3:GetObject', `${w.bucket}/charms/0a1b.tar.gz`),
      req('GetObjectCommand', 's3:GetObject', `${w.bucket}/uploads/0a1b`),
      // A missing object is NoSuchKey only to a caller who may list where it would be.
      req('GetObjectCommand', 's3:ListBucket', w.bucket, { 's3:prefix': 'uploads/0a1b' }),
      req('CopyObjectCommand', 's3:GetObject', `${w.bucket}/uploads/0a1b`),
      req('CopyObjectCommand', 's3:PutObject', `${w.bucket}/charms/0a1b.tar.gz`),
      req('DeleteObjectCommand', 's3:DeleteObject', `${w.bucket}/uploads/0a1b`),
      // Presigned: the CLI's upload and the agents' downloads, authorized as this role.
      req('presignS3Url', 's3:PutObject', `${w.bucket}/uploads/0a1b`),
      req('presignS3Url', 's3:GetObject', `${w.bucket}/charms/0a1b.tar.gz`),
      // debug-log reads the agents' records back from its own log group.
      req('FilterLogEventsCommand', 'logs:FilterLogEvents', w.logStream('api').replace(/log-stream:.*$/, '*')),
    ],
  },
  provisioner: {
    role: functionRole('provisioner'),
    code: { entry: 'functions/provisioner/handler.ts', handler: 'handler' },
    requests: (w) => [...writesLogs(w, 'provisioner'), ...readsStream(w), ...reads(w), ...transactions(w), ...provisions(w)],
    notSent: {
      ...Object.fromEntries(FIREWALL_COMMANDS.map((c) => [c, 'the firewall runs only in the scheduled reconcile (reconcile-all.ts)'])),
      PutCommand: "the run lease (run-lease.ts) is the scheduled reconcile's",
      DeleteCommand: "the run lease (run-lease.ts) is the scheduled reconcile's",
    },
  },
  provisionerReconcile: {
    role: functionRole('provisionerReconcile'),
    code: { entry: 'functions/provisioner/handler.ts', handler: 'reconcile' },
    requests: (w) => [
      ...writesLogs(w, 'provisionerReconcile'),
      ...notesFailedRuns(w),
      ...reads(w),
      ...transactions(w),
      ...runLease(w, 'provisionerReconcile'),
      ...provisions(w),
      ...firewall(w),
    ],
  },
  changes: {
    role: functionRole('changes'),
    code: { entry: 'functions/changes/handler.ts', handler: 'handler' },
    requests: (w) => [
      ...writesLogs(w, 'changes'),
      ...readsStream(w),
      ...reads(w),
      ...transactions(w),
      // The model revision and cleanup cursors (model-revision.ts, run-cleanups.ts), a finished cleanup's removal.
      req('UpdateCommand', 'dynamodb:UpdateItem', w.table),
      req('DeleteCommand', 'dynamodb:DeleteItem', w.table),
      // A removed relation's settings, in batches (cleanup/settings.ts).
      req('BatchWriteCommand', 'dynamodb:BatchWriteItem', w.table),
      // Hints (machine-queues.ts), re-creating a missing queue and binding it to its instance.
      req('SendMessageBatchCommand', 'sqs:SendMessage', w.machineQueue),
      ...ensuresQueues(w),
      req('TagQueueCommand', 'sqs:TagQueue', w.machineQueue),
    ],
  },
  cleanupSweep: {
    role: functionRole('cleanupSweep'),
    code: { entry: 'functions/cleanup/handler.ts', handler: 'sweepHandler' },
    requests: (w) => [
      ...writesLogs(w, 'cleanupSweep'),
      ...notesFailedRuns(w),
      ...reads(w),
      ...transactions(w),
      ...runLease(w, 'cleanupSweep'),
      req('UpdateCommand', 'dynamodb:UpdateItem', w.table),
      req('DeleteCommand', 'dynamodb:DeleteItem', w.table),
      req('BatchWriteCommand', 'dynamodb:BatchWriteItem', w.table),
    ],
  },
  watchdog: {
    role: functionRole('watchdog'),
    code: { entry: 'functions/watchdog/handler.ts', handler: 'handler' },
    requests: (w) => [
      ...writesLogs(w, 'watchdog'),
      ...notesFailedRuns(w),
      req('BatchGetCommand', 'dynamodb:BatchGetItem', w.table),
      ...[w.table, ...w.indexes].map((resource) => req('QueryCommand', 'dynamodb:Query', resource)),
      ...runLease(w, 'watchdog'),
    ],
  },
  teardown: {
    role: functionRole('teardown'),
    code: { entry: 'functions/teardown/handler.ts', handler: 'handler' },
    requests: (w) => [
      ...writesLogs(w, 'teardown'),
      req('DescribeInstancesCommand', 'ec2:DescribeInstances', '*'),
      req('TerminateInstancesCommand', 'ec2:TerminateInstances', instance(w), ownTag(w)),
      req('DescribeSecurityGroupsCommand', 'ec2:DescribeSecurityGroups', '*'),
      req('DeleteSecurityGroupCommand', 'ec2:DeleteSecurityGroup', applicationGroup(w), ownTag(w)),
      req('ListQueuesCommand', 'sqs:ListQueues', '*'),
      req('DeleteQueueCommand', 'sqs:DeleteQueue', w.machineQueue),
    ],
  },
  agent: {
    role: (stack) => stack.machines.agentRole,
    code: { entry: 'agent/main.ts' },
    requests: (w) => {
      // Requests signed with instance-role credentials name the caller's instance.
      const own = {
        [`aws:ResourceTag/${INSTANCE_TAG}`]: ec2Arn('instance', 'i-0a1b2c3d4e5f60718', w.env),
        'ec2:SourceInstanceARN': ec2Arn('instance', 'i-0a1b2c3d4e5f60718', w.env),
      };
      return [
        // The user data downloads the agent bundle with the instance's role (shared/provider/ec2/s3-get-script.ts).
        req('ec2 instance boot', 's3:GetObject', w.agentBundle),
        req('ReceiveMessageCommand', 'sqs:ReceiveMessage', w.machineQueue, own),
        req('DeleteMessageBatchCommand', 'sqs:DeleteMessage', w.machineQueue, own),
        req('signRequest', 'execute-api:Invoke', w.agentRoute),
        // The SSM agent of the Ubuntu image registers the instance and opens Session Manager's
        // channels for `drover ssh`/`scp` (infra/machines.ts, grantSessionManager).
        req('ssm agent', 'ssm:UpdateInstanceInformation', ec2Arn('instance', 'i-0a1b2c3d4e5f60718', w.env)),
        ...['CreateControlChannel', 'CreateDataChannel', 'OpenControlChannel', 'OpenDataChannel'].map((channel) =>
          req('ssm agent', `ssmmessages:${channel}`, '*'),
        ),
        // A missing queue is the changes function's to re-create (it re-creates it at the next hint);
        // the agent's attempt is for the local controller's SQS server, which has no IAM.
        ...ensuresQueues(w).map((r) => ({ ...r, refusedBecause: 'the changes function re-creates a missing machine queue' })),
      ];
    },
  },
  flowLogs: {
    role: (stack) => stack.machines.node.findAll().find((c) => c.node.id === 'IAMRole')!,
    // What VPC Flow Logs calls to publish to CloudWatch Logs:
    // https://docs.aws.amazon.com/vpc/latest/userguide/flow-logs-iam-role.html
    requests: (w) => [
      req('vpc-flow-logs', 'logs:CreateLogStream', w.flowLogStream),
      req('vpc-flow-logs', 'logs:PutLogEvents', w.flowLogStream),
      req('vpc-flow-logs', 'logs:DescribeLogStreams', w.flowLogStream.replace(/log-stream:.*$/, '*')),
    ],
  },
};
