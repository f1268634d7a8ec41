// The tear-down's grant, proved against the tear-down itself: shared/provisioner/tear-down.ts runs
// against mocked EC2 and SQS holding instances, an application group and machine queues left
// behind, and every request it sends is evaluated by an IAM policy simulator under the policy
// infra/machines.ts gives its role (test/support/iam-simulation.ts). A denied request is what
// CloudFormation would see as DELETE_FAILED (or ROLLBACK_FAILED after a failed first deploy).
import {
  DeleteSecurityGroupCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { DeleteQueueCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, describe, expect, it } from 'vitest';
import { Machines } from '../../infra/machines.js';
import { machineQueuePrefix } from '#shared/messaging/queue-names.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG } from '#shared/provider/ec2/tags.js';
import { tearDownController } from '#shared/provisioner/tear-down.js';
import {
  ACCOUNT,
  DEPLOYMENT_ID,
  REGION,
  decide,
  refused,
  requestsOf,
  statementsOf,
  unused,
  type IamRequest,
  type PolicyStatement,
  type SentCommand,
} from '../support/iam-simulation.js';

const CONTROLLER = 'a';

/** The tear-down role's statements, from a stack holding only the machines (no bundling). */
function tearDownStatements(controllerId: string): PolicyStatement[] {
  const app = new App();
  const stack = new Stack(app, `drover-${controllerId}`);
  const machines = new Machines(stack, 'Machines', { controllerId });
  const role = new iam.Role(stack, 'TearDownRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  machines.grantTearDown(role);
  return statementsOf(stack, role);
}

/** Runs the tear-down against what a stack leaves behind; returns the IAM requests it made. */
async function runTearDown(controllerId: string): Promise<IamRequest[]> {
  const ec2 = mockClient(EC2Client);
  const sqs = mockClient(SQSClient);
  const own = { [CONTROLLER_TAG]: controllerId, [DEPLOYMENT_TAG]: DEPLOYMENT_ID };
  ec2
    .on(DescribeInstancesCommand)
    .resolvesOnce({ Reservations: [{ Instances: [{ InstanceId: 'i-0a1', State: { Name: 'running' } }] }] })
    .resolves({ Reservations: [] });
  ec2.on(TerminateInstancesCommand).resolves({});
  ec2.on(DescribeSecurityGroupsCommand).resolves({
    SecurityGroups: [
      { GroupId: 'sg-0app', Tags: [...Object.entries(own), ['drover:application', 'web']].map(([Key, Value]) => ({ Key, Value })) },
    ],
  });
  ec2.on(DeleteSecurityGroupCommand).resolves({});
  const prefix = machineQueuePrefix(controllerId);
  sqs.on(ListQueuesCommand).resolves({
    QueueUrls: ['0', '1'].map((m) => `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${prefix}${m}`),
  });
  sqs.on(DeleteQueueCommand).resolves({});
  await tearDownController({
    ec2: new EC2Client({ region: REGION }),
    sqs: new SQSClient({ region: REGION }),
    controllerId,
    deploymentId: DEPLOYMENT_ID,
    deadline: Number.MAX_SAFE_INTEGER,
    pause: async () => {},
  });
  const sent = (service: 'ec2' | 'sqs', mock: typeof ec2 | typeof sqs) =>
    mock.calls().flatMap((call) => {
      const command = call.args[0] as unknown as { constructor: { name: string }; input: Record<string, unknown> };
      return requestsOf(service, { name: command.constructor.name, input: command.input } as SentCommand, () => own);
    });
  const requests = [...sent('ec2', ec2), ...sent('sqs', sqs)];
  ec2.restore();
  sqs.restore();
  return requests;
}

describe("the tear-down's grant, simulated against the tear-down's own requests", () => {
  let statements: PolicyStatement[];
  let requests: IamRequest[];
  beforeAll(async () => {
    statements = tearDownStatements(CONTROLLER);
    requests = await runTearDown(CONTROLLER);
  });

  it('lists the queues left behind (ListQueues included) and deletes them, after terminating the instances', () => {
    expect(requests.map((r) => r.action)).toEqual([
      'ec2:DescribeInstances',
      'ec2:TerminateInstances',
      'ec2:DescribeInstances',
      'ec2:DescribeSecurityGroups',
      'ec2:DeleteSecurityGroup',
      'sqs:ListQueues',
      'sqs:DeleteQueue',
      'sqs:DeleteQueue',
    ]);
  });

  it('is allowed every request it makes: ListQueues, which takes no resource but "*", too', async () => {
    expect(await refused(statements, requests)).toEqual([]);
  });

  it('is granted nothing it does not use', () => {
    expect(unused(statements, requests)).toEqual([]);
  });

  it("may not delete another controller's queue, nor terminate another controller's instance", async () => {
    const other = machineQueuePrefix('b');
    expect(await decide(statements, { action: 'sqs:DeleteQueue', resource: `arn:aws:sqs:${REGION}:${ACCOUNT}:${other}0` })).not.toBe(
      'Allowed',
    );
    expect(
      await decide(statements, {
        action: 'ec2:TerminateInstances',
        resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/i-0b`,
        context: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: 'b' },
      }),
    ).not.toBe('Allowed');
  });
});
