// Every cdk-nag finding drover keeps on purpose, with its reason, in this one file: the
// AwsSolutions findings on the resources they name, and the Serverless pack's on the whole stack
// (each of its reasons holds for every resource the rule names). infra/drover-app.ts applies them
// once the stack is built; test/infra/nag-acknowledgements.test.ts fails on an acknowledgement
// made anywhere else, and test/infra/stack.test.ts on one whose finding no longer exists.
import { Validations, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { machineQueuePrefix } from '#shared/messaging/queue-names.js';
import type { FunctionKey } from './functions.js';
import type { DroverStack } from './stack.js';
import { STREAM_CONSUMERS } from '../functions/stream-consumers.js';

/** The Serverless pack's findings, acknowledged on the stack. */
export const SERVERLESS_ACKNOWLEDGEMENTS: Record<string, string> = {
  'Serverless-LambdaLatestVersion':
    'drover targets the Node.js 22 Lambda runtime on purpose (the runtime its bundles are built for); upgrades are deliberate.',
  'Serverless-LambdaTracing':
    'X-Ray tracing bills per trace and is not needed to find what is stuck: the watchdog, the saved Logs Insights queries and the alarms are.',
  'Serverless-LambdaDLQ':
    'No function needs a dead-letter queue of its own: the stream consumers have an on-failure destination on their mappings, the ' +
    'scheduled functions an asynchronous failure destination (the scheduled failure queue), and the api and tear-down functions are ' +
    'invoked synchronously, their callers seeing the failure.',
  'Serverless-EventBusDLQ':
    'A scheduled rule that cannot invoke its function loses one run, which the next run covers; the function itself sends its ' +
    'failed or too-old runs to the scheduled failure queue, which alarms.',
  'Serverless-SQSRedrivePolicy':
    'These queues are themselves where failures end (the stream failure queue, the hint dead-letter queue, the scheduled failure ' +
    'queue): a dead-letter queue of a dead-letter queue would only move the messages a human must read.',
  'Serverless-SNSRedrivePolicy':
    'The alarm topic has one email subscription; SNS retries email delivery itself, and the alarm stays in ALARM in CloudWatch ' +
    'whether or not the email arrives.',
};

interface Acknowledgement {
  /** The constructs the finding is on. */
  on: IConstruct[];
  /** The rule, and for IAM5 the finding's resource or action in brackets. */
  id: string;
  reason: string;
}

const iam5 = (finding: string) => `AwsSolutions-IAM5[${finding}]`;
/** cdk-nag's spelling of an ARN the template builds from pseudo parameters. */
const arnFinding = (service: string, resource: string, account = '<AWS::AccountId>') =>
  `Resource::arn:<AWS::Partition>:${service}:<AWS::Region>:${account}:${resource}`;

/** Every AwsSolutions acknowledgement of the stack, with the constructs it is on. */
function awsSolutionsAcknowledgements(stack: DroverStack): Acknowledgement[] {
  const roles = stack.functions.roles;
  const fns = Object.values(stack.functions.functions);
  const provisioners = [roles.provisioner, roles.provisionerReconcile];
  const machineQueues = arnFinding('sqs', `${machineQueuePrefix(stack.controllerId)}*`);
  const logicalId = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const apiId = logicalId(stack.api.httpApi);
  const bucketId = logicalId(stack.charms.bucket);
  const consumers = STREAM_CONSUMERS.map((c) => roles[c.name as FunctionKey]);
  return [
    {
      on: fns,
      id: 'AwsSolutions-L1',
      reason:
        'drover targets the Node.js 22 Lambda runtime on purpose (its bundles are built for it, with their own pinned AWS SDK); upgrades are deliberate.',
    },
    {
      on: [stack.consumers.failureQueue],
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the failure destination of the stream mappings; nothing consumes it automatically, an alarm on its depth calls an operator.',
    },
    {
      on: [stack.functions.scheduledFailures],
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a failure destination: it keeps notes of scheduled runs that failed, for a human to read.',
    },
    {
      on: [stack.machines.deadLetterQueue],
      id: 'AwsSolutions-SQS3',
      reason: 'This is the dead-letter queue of the machine queues (they are created at run time with a redrive policy naming it).',
    },
    {
      on: [stack.charms.bucket],
      id: 'AwsSolutions-S1',
      reason:
        'Only the api function reads and writes this bucket, under content-addressed keys; its requests are in the function log. ' +
        'Server access logs would need a second bucket (itself unlogged) and cost at rest for no added audit value.',
    },
    // The machine agents' role (infra/machines.ts, infra/api.ts).
    {
      on: [stack.machines.agentRole],
      id: iam5(machineQueues),
      reason:
        'Machine queues are created per machine at run time, after this role exists; the prefix confines agents to machine queues ' +
        "of this controller, and the instance-tag condition to their own machine's queue (see the comment in infra/machines.ts).",
    },
    {
      on: [stack.machines.agentRole],
      id: iam5(arnFinding('execute-api', `<${apiId}>/*/*/v1/agent/*`)),
      reason:
        'Agents may call every agent route (any operation under /v1/agent) of this API; which machine they act for is checked by the handler.',
    },
    {
      on: [stack.machines.agentRole],
      id: iam5(arnFinding('ec2', 'instance/*')),
      reason:
        "ssm:UpdateInstanceInformation is how an instance's SSM agent registers it for Session Manager; instance ids are made at run " +
        "time, and IAM cannot name the caller's own instance as a resource. It registers, it runs nothing.",
    },
    {
      on: [stack.machines.agentRole],
      id: iam5('Resource::*'),
      reason:
        "Session Manager's message channels (ssmmessages:*Channel) have no resource type to scope to; they carry only sessions " +
        'that a user with ssm:StartSession on this instance opened (docs/deploy-to-aws.md, "Reaching machines with ssh and scp").',
    },
    {
      on: [stack.api.userPolicy],
      id: iam5(arnFinding('execute-api', `<${apiId}>/*/*/v1/*`)),
      reason: 'Users may call every user route (any method, any operation under /v1) of this API; the API id is fixed.',
    },
    // The api function's charm archives (infra/charm-store.ts).
    ...['charms/', 'uploads/'].map((prefix) => ({
      on: [roles.api],
      id: iam5(`Resource::<${bucketId}.Arn>/${prefix}*`),
      reason: 'Charm archives and their uploads are named by their SHA-256; the grant covers these two prefixes of this bucket only.',
    })),
    // The provisioner's EC2 grants (infra/machines.ts, grantProvisioner and grantFirewall).
    {
      on: provisioners,
      id: iam5(arnFinding('ec2', 'instance/*')),
      reason:
        'Instance ids do not exist before RunInstances; launch requires the controller and deployment tags in the request, a catalogue ' +
        "instance type and IMDSv2; termination (and, for the firewall, a group change) the controller's tag on the instance.",
    },
    {
      on: [roles.teardown],
      id: iam5(arnFinding('ec2', 'instance/*')),
      reason: "Instances are made at run time; termination requires the controller's tag on the instance.",
    },
    {
      on: provisioners,
      id: iam5(arnFinding('ec2', 'volume/*')),
      reason:
        'Volume ids do not exist before RunInstances or CreateVolume; both require the controller and deployment tags in the request ' +
        "(CreateVolume an encrypted volume of an EBS type too); attaching, detaching and deleting one the controller's tag on it.",
    },
    {
      on: provisioners,
      id: iam5(arnFinding('ec2', 'network-interface/*')),
      reason: "The network interface is created by RunInstances, in this VPC's subnets and security group named in the same statement.",
    },
    {
      on: provisioners,
      id: iam5(arnFinding('ec2', 'image/*', '')),
      reason: "Any current Canonical Ubuntu image may be chosen; restricted by the ec2:Owner condition to Canonical's account.",
    },
    {
      on: [roles.teardown],
      id: iam5(arnFinding('ec2', 'security-group/*')),
      reason: "Application groups are made at run time; deletion requires the controller's tag on the group.",
    },
    {
      on: [roles.provisionerReconcile],
      id: iam5(arnFinding('ec2', 'security-group/*')),
      reason:
        "Application groups are made at run time; creating one requires this controller's and deployment's tags in the request, " +
        "changing, deleting or attaching one this controller's tag on the group (see grantFirewall in infra/machines.ts).",
    },
    {
      on: [...provisioners, roles.changes, roles.teardown],
      id: iam5(machineQueues),
      reason:
        "One queue per machine, created and deleted at run time; the name prefix confines the grant to this controller's machine queues.",
    },
    // Actions that accept no resource but "*" (test/infra/iam-simulation.test.ts checks each against AWS's reference).
    {
      on: [...new Set([...provisioners, ...consumers, roles.teardown])],
      id: iam5('Resource::*'),
      reason:
        'Granted only for actions that support no resource-level permissions (they require Resource "*"): dynamodb:ListStreams ' +
        "(the stream mappings; every other stream action is on this table's stream ARN), ec2:DescribeInstances, DescribeImages, " +
        'DescribeSubnets, DescribeVolumes and DescribeSecurityGroups, and sqs:ListQueues (the tear-down).',
    },
  ];
}

/** Applies every acknowledgement above; called once the stack is complete. */
export function acknowledgeNagFindings(stack: DroverStack): void {
  for (const { on, id, reason } of awsSolutionsAcknowledgements(stack))
    for (const construct of on) Validations.of(construct).acknowledge({ id, reason });
  for (const [id, reason] of Object.entries(SERVERLESS_ACKNOWLEDGEMENTS)) Validations.of(stack).acknowledge({ id, reason });
}
