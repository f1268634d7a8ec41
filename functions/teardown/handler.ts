// The stack's tear-down custom resource (infra/teardown.ts): nothing to do when it is created or
// updated; when the stack is deleted, it stops this deployment's instances and deletes its
// applications' security groups and machine queues (shared/provisioner/tear-down.ts) before
// CloudFormation removes the network they use, and answers CloudFormation on the presigned URL it
// was given.
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-responses.html
import { Logger } from '@aws-lambda-powertools/logger';
import { EC2Client } from '@aws-sdk/client-ec2';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { tearDownController, type TearDownDeps } from '#shared/provisioner/tear-down.js';
import { environmentOf } from '../environment.js';
import { errorMessage } from '#shared/domain/errors.js';

/** Time kept back from the function's own timeout to answer CloudFormation. */
const ANSWER_MS = 30_000;

export interface TearDownHandlerDeps {
  tearDown: (deadline: number) => ReturnType<typeof tearDownController>;
  /** Sends the answer (a PUT of JSON to the presigned URL). */
  answer?: (url: string, body: string) => Promise<void>;
  logger?: Pick<Logger, 'info' | 'error'>;
}

async function put(url: string, body: string): Promise<void> {
  // CloudFormation's presigned URL is signed without a content type: send none.
  const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': '' } });
  if (!res.ok) throw new Error(`CloudFormation refused the answer: HTTP ${res.status}`);
}

export function createTearDownHandler(deps: TearDownHandlerDeps) {
  const answer = deps.answer ?? put;
  return async (event: CloudFormationCustomResourceEvent, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> => {
    const physicalId = 'PhysicalResourceId' in event ? event.PhysicalResourceId : `${event.LogicalResourceId}-teardown`;
    let status: 'SUCCESS' | 'FAILED' = 'SUCCESS';
    let reason = 'nothing to tear down';
    if (event.RequestType === 'Delete') {
      try {
        const done = await deps.tearDown(Date.now() + context.getRemainingTimeInMillis() - ANSWER_MS);
        reason =
          `terminated ${done.terminated.length} instances, deleted ${done.groupsDeleted.length} security groups ` +
          `and ${done.queuesDeleted.length} machine queues`;
        deps.logger?.info('torn down', { ...done });
      } catch (e) {
        // The stack stops at DELETE_FAILED with this reason; deleting it again tries again.
        status = 'FAILED';
        reason = `cannot tear down the controller: ${errorMessage(e)}`;
        deps.logger?.error('tear-down failed', { error: e as Error });
      }
    }
    await answer(
      event.ResponseURL,
      JSON.stringify({
        Status: status,
        Reason: reason,
        PhysicalResourceId: physicalId,
        StackId: event.StackId,
        RequestId: event.RequestId,
        LogicalResourceId: event.LogicalResourceId,
      }),
    );
  };
}

let lambdaHandler: ReturnType<typeof createTearDownHandler> | undefined;

export const handler = (event: CloudFormationCustomResourceEvent, context: Context): Promise<void> => {
  const env = environmentOf('tear-down function');
  lambdaHandler ??= createTearDownHandler({
    tearDown: (deadline) => {
      const deps: TearDownDeps = {
        ec2: new EC2Client({}),
        sqs: createSqsClient({}),
        controllerId: env.required('CONTROLLER_ID'),
        deploymentId: env.required('DEPLOYMENT_ID'),
        deadline,
      };
      return tearDownController(deps);
    },
    logger: new Logger({ serviceName: 'teardown' }),
  });
  return lambdaHandler(event, context);
};
