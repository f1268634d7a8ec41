// Deleting the stack with machines running: CloudFormation cannot delete a security group or
// subnet an instance still uses, and does not know the machine queues the provisioner made. This
// custom resource is deleted first (functions/teardown/handler.ts terminates the instances and
// deletes the queues), after what could start new instances (the stream mappings and schedules,
// which depend on it) and before the network (on which it depends).
import { CustomResource } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, type IDependable } from 'constructs';

export interface TearDownProps {
  handler: lambda.IFunction;
  /** Deleted after the tear-down: the machines' network, role and launch template. */
  after: IDependable;
  /** Deleted before the tear-down: whatever could start an instance meanwhile. */
  before: Construct[];
}

export class TearDown extends Construct {
  constructor(scope: Construct, id: string, props: TearDownProps) {
    super(scope, id);
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: props.handler.functionArn,
      resourceType: 'Custom::DroverTearDown',
    });
    resource.node.addDependency(props.after);
    for (const construct of props.before) construct.node.addDependency(resource);
  }
}
