// A queue as a Lambda failure destination, granting the function's role only sqs:SendMessage,
// which is all Lambda calls to deliver a failure note
// (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html). CDK's own
// SqsDestination and SqsDlq grant GetQueueAttributes and GetQueueUrl too, which nothing uses
// (test/infra/iam-simulation.test.ts fails on a granted action that no request uses).
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** The asynchronous failure destination of a function (its `onFailure`). */
export class SendOnlyQueueDestination implements lambda.IDestination {
  constructor(private readonly queue: sqs.IQueue) {}

  bind(_scope: Construct, fn: lambda.IFunction): lambda.DestinationConfig {
    this.queue.grant(fn, 'sqs:SendMessage');
    return { destination: this.queue.queueArn };
  }
}

/** The on-failure destination of an event source mapping (its `onFailure`). */
export class SendOnlyQueueDlq implements lambda.IEventSourceDlq {
  constructor(private readonly queue: sqs.IQueue) {}

  bind(_target: lambda.IEventSourceMapping, targetHandler: lambda.IFunction): lambda.DlqDestinationConfig {
    this.queue.grant(targetHandler, 'sqs:SendMessage');
    return { destination: this.queue.queueArn };
  }
}
