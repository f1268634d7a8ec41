// Deleting the stack with machines running (shared/provisioner/tear-down.ts and the custom
// resource of functions/teardown/handler.ts): this deployment's instances are terminated and
// waited for, its machine queues deleted, nothing of another controller touched, and
// CloudFormation told how it went. EC2 is mocked (no local server), SQS is fauxqs.
import {
  DeleteSecurityGroupCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  EC2ServiceException,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import { createTearDownHandler } from '../../functions/teardown/handler.js';
import { ensureMachineQueue } from '#shared/messaging/machine-queues.js';
import { machineQueuePrefix } from '#shared/messaging/queue-names.js';
import { tearDownController, type TearDownDeps, type TearDownResult } from '#shared/provisioner/tear-down.js';
import { useSqsServer } from '../support/sqs.js';

const sqsServer = useSqsServer();
const ec2Mock = mockClient(EC2Client);
const ec2 = new EC2Client({ region: 'us-east-1' });

const page = (...instances: [string, string][]) => ({
  Reservations: [{ Instances: instances.map(([id, state]) => ({ InstanceId: id, State: { Name: state as never } })) }],
});

let controllerId: string;
let deps: TearDownDeps;
let pauses: number;

const appGroup = (groupId: string, application: string) => ({
  GroupId: groupId,
  Tags: [
    { Key: 'drover:controller', Value: controllerId },
    { Key: 'drover:application', Value: application },
  ],
});
const inUse = () =>
  new EC2ServiceException({ name: 'DependencyViolation', message: 'resource has a dependent object', $fault: 'client', $metadata: {} });

beforeEach(() => {
  ec2Mock.reset();
  // No application group, unless a test says otherwise.
  ec2Mock.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: [] });
  controllerId = `td-${randomUUID().slice(0, 8)}`;
  pauses = 0;
  deps = {
    ec2,
    sqs: sqsServer.client(),
    controllerId,
    deploymentId: 'deployment-1',
    deadline: Date.now() + 60_000,
    pause: async () => {
      pauses++;
    },
  };
});

const queuesOf = async (controller: string) =>
  (await sqsServer.client().send(new ListQueuesCommand({ QueueNamePrefix: machineQueuePrefix(controller) }))).QueueUrls ?? [];

describe('tearing down a controller', () => {
  it("terminates this deployment's instances, waits until none is left, then deletes its machine queues only, of every model", async () => {
    const other = `td-${randomUUID().slice(0, 8)}`;
    for (const m of ['0', '1']) await ensureMachineQueue(deps.sqs, controllerId, 'default', m);
    // Machine 0 of a second model: its queue is this controller's too.
    await ensureMachineQueue(deps.sqs, controllerId, randomUUID(), '0');
    await ensureMachineQueue(deps.sqs, other, 'default', '0');
    ec2Mock
      .on(DescribeInstancesCommand)
      .resolvesOnce(page(['i-0run', 'running'], ['i-0going', 'shutting-down']))
      .resolvesOnce(page(['i-0run', 'shutting-down']))
      .resolves({ Reservations: [] });
    ec2Mock.on(TerminateInstancesCommand).resolves({});

    const done = await tearDownController(deps);

    expect(done.terminated).toEqual(['i-0run', 'i-0going']);
    // One already shutting down is not terminated again.
    expect(ec2Mock.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input.InstanceIds)).toEqual([['i-0run']]);
    // Only instances of this controller and deployment, in every state but terminated.
    const filters = ec2Mock.commandCalls(DescribeInstancesCommand)[0]!.args[0].input.Filters;
    expect(filters).toEqual([
      { Name: 'tag:drover:controller', Values: [controllerId] },
      { Name: 'tag:drover:deployment', Values: ['deployment-1'] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
    ]);
    expect(pauses).toBe(2);
    expect(done.queuesDeleted).toHaveLength(3);
    expect(await queuesOf(controllerId)).toEqual([]);
    expect(await queuesOf(other)).toHaveLength(1);
  });

  it('gives up at its deadline, naming the instances still terminating, and deletes no queue meanwhile', async () => {
    await ensureMachineQueue(deps.sqs, controllerId, 'default', '0');
    ec2Mock.on(DescribeInstancesCommand).resolves(page(['i-0slow', 'shutting-down']));
    let clock = 0;
    await expect(tearDownController({ ...deps, deadline: 2, now: () => clock++ })).rejects.toThrow(
      '1 instances still terminating (i-0slow); delete the stack again to keep waiting',
    );
    expect(await queuesOf(controllerId)).toHaveLength(1);
  });

  it('goes on when an instance it listed is gone by the time it terminates them', async () => {
    ec2Mock
      .on(DescribeInstancesCommand)
      .resolvesOnce(page(['i-0aaa', 'running'], ['i-0bbb', 'running']))
      .resolves({ Reservations: [] });
    ec2Mock
      .on(TerminateInstancesCommand)
      .rejectsOnce(
        new EC2ServiceException({
          name: 'InvalidInstanceID.NotFound',
          message: "The instance ID 'i-0aaa' does not exist",
          $fault: 'client',
          $metadata: {},
        }),
      )
      .resolves({});
    const done = await tearDownController(deps);
    expect(done.terminated).toEqual(['i-0aaa', 'i-0bbb']);
    // The gone one is dropped, and the rest terminated.
    expect(ec2Mock.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input.InstanceIds)).toEqual([
      ['i-0aaa', 'i-0bbb'],
      ['i-0bbb'],
    ]);
  });

  it("deletes this deployment's application groups once the instances are gone, waiting for those still held", async () => {
    ec2Mock
      .on(DescribeInstancesCommand)
      .resolvesOnce(page(['i-0run', 'running']))
      .resolves({ Reservations: [] });
    ec2Mock.on(TerminateInstancesCommand).resolves({});
    ec2Mock.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: [appGroup('sg-web', 'web'), appGroup('sg-db', 'db')] });
    ec2Mock.on(DeleteSecurityGroupCommand, { GroupId: 'sg-web' }).rejectsOnce(inUse()).resolves({});
    ec2Mock.on(DeleteSecurityGroupCommand, { GroupId: 'sg-db' }).resolves({});

    const done = await tearDownController(deps);

    expect(done.groupsDeleted).toEqual(['sg-web', 'sg-db']);
    expect(ec2Mock.commandCalls(DeleteSecurityGroupCommand).map((c) => c.args[0].input.GroupId)).toEqual(['sg-web', 'sg-db', 'sg-web']);
    // Only groups of this controller and deployment that serve an application: never the shared one.
    expect(ec2Mock.commandCalls(DescribeSecurityGroupsCommand)[0]!.args[0].input.Filters).toEqual([
      { Name: 'tag:drover:controller', Values: [controllerId] },
      { Name: 'tag-key', Values: ['drover:application'] },
      { Name: 'tag:drover:deployment', Values: ['deployment-1'] },
    ]);
    // Groups only after the instances are gone (one pause for the instance, one for the held group).
    expect(pauses).toBe(2);
  });

  it('gives up on a group still in use after its bounded tries, naming it, and deletes no queue', async () => {
    await ensureMachineQueue(deps.sqs, controllerId, 'default', '0');
    ec2Mock.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    ec2Mock.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: [appGroup('sg-web', 'web')] });
    ec2Mock.on(DeleteSecurityGroupCommand).rejects(inUse());
    await expect(tearDownController(deps)).rejects.toThrow(
      '1 security groups of exposed applications are still in use (sg-web); delete the stack again once the network interfaces holding them are gone',
    );
    expect(ec2Mock.commandCalls(DeleteSecurityGroupCommand)).toHaveLength(12);
    expect(await queuesOf(controllerId)).toHaveLength(1);
  });

  it('is safe to repeat: nothing left is nothing to do', async () => {
    ec2Mock.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    expect(await tearDownController(deps)).toEqual({ terminated: [], groupsDeleted: [], queuesDeleted: [] });
    expect(ec2Mock.commandCalls(TerminateInstancesCommand)).toEqual([]);
  });
});

describe('the tear-down custom resource', () => {
  const event = (type: 'Create' | 'Update' | 'Delete'): CloudFormationCustomResourceEvent =>
    ({
      RequestType: type,
      ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:teardown',
      ResponseURL: 'https://cloudformation-custom-resource-response.example/answer?sig=1',
      StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/drover-main/7c0a6e40-1111-2222-3333-444455556666',
      RequestId: 'req-1',
      LogicalResourceId: 'TearDown',
      ResourceType: 'Custom::DroverTearDown',
      ResourceProperties: { ServiceToken: 'x' },
      ...(type === 'Create' ? {} : { PhysicalResourceId: 'TearDown-teardown' }),
    }) as CloudFormationCustomResourceEvent;
  const context = { getRemainingTimeInMillis: () => 600_000 };

  async function run(type: 'Create' | 'Update' | 'Delete', tearDown: () => Promise<TearDownResult>) {
    const answers: { url: string; body: Record<string, string> }[] = [];
    let tornDown = 0;
    const handler = createTearDownHandler({
      tearDown: async () => {
        tornDown++;
        return tearDown();
      },
      answer: async (url, body) => {
        answers.push({ url, body: JSON.parse(body) as Record<string, string> });
      },
    });
    await handler(event(type), context);
    return { answers, tornDown };
  }

  it('does nothing on create or update, and says so to CloudFormation', async () => {
    for (const type of ['Create', 'Update'] as const) {
      const { answers, tornDown } = await run(type, async () => ({ terminated: [], groupsDeleted: [], queuesDeleted: [] }));
      expect(tornDown).toBe(0);
      expect(answers).toEqual([
        {
          url: 'https://cloudformation-custom-resource-response.example/answer?sig=1',
          body: expect.objectContaining({
            Status: 'SUCCESS',
            PhysicalResourceId: 'TearDown-teardown',
            RequestId: 'req-1',
            LogicalResourceId: 'TearDown',
          }),
        },
      ]);
    }
  });

  it("answers with a PUT of the JSON to CloudFormation's presigned URL", async () => {
    const received: { method?: string; url?: string; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ ...(req.method ? { method: req.method } : {}), ...(req.url ? { url: req.url } : {}), body });
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const handler = createTearDownHandler({ tearDown: async () => ({ terminated: [], groupsDeleted: [], queuesDeleted: [] }) });
      await handler({ ...event('Create'), ResponseURL: `http://127.0.0.1:${port}/answer?sig=1` }, context);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ method: 'PUT', url: '/answer?sig=1' });
      expect(JSON.parse(received[0]!.body)).toMatchObject({ Status: 'SUCCESS', RequestId: 'req-1' });
    } finally {
      server.close();
    }
  });

  it('tears down on delete and reports what it did; a failure is FAILED with the reason', async () => {
    const ok = await run('Delete', async () => ({ terminated: ['i-1'], groupsDeleted: ['sg-1'], queuesDeleted: ['q1', 'q2'] }));
    expect(ok.answers[0]!.body).toMatchObject({
      Status: 'SUCCESS',
      Reason: 'terminated 1 instances, deleted 1 security groups and 2 machine queues',
    });
    const failed = await run('Delete', async () => {
      throw new Error('1 instances still terminating (i-1); delete the stack again to keep waiting');
    });
    expect(failed.answers[0]!.body).toMatchObject({
      Status: 'FAILED',
      Reason: 'cannot tear down the controller: 1 instances still terminating (i-1); delete the stack again to keep waiting',
    });
  });
});
