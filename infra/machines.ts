// Where machines run: a small VPC, the launch template and instance profile of every drover
// instance, their shared security group (never any ingress), the dead-letter queue of the
// per-machine hint queues — and the EC2, IAM and SQS permissions of the functions that manage
// them (the provisioner and the changes function, which hints) and of the agents on the instances.
import { Aws, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueueName, machineQueuePrefix } from '#shared/messaging/queue-names.js';
import { INSTANCE_TAG } from '#shared/messaging/queue-instance-tag.js';
import type { FunctionEnvironment } from '../functions/environment.js';
import { CONTROLLER_TAG, DEPLOYMENT_TAG } from '#shared/provider/ec2/tags.js';
import { CANONICAL_OWNER_ID } from '#shared/provider/ec2/images.js';
import { EC2_INSTANCE_TYPES } from '#shared/provider/ec2/instance-types.js';
import { EBS_VOLUME_TYPES } from '#shared/provider/ec2/ebs-pool.js';

export interface MachinesProps {
  controllerId: string;
}

export { machineQueuePrefix };

/** Every instance type the ec2 provider can choose: its catalogue's, deprecated ones included (`instance-type` may name them). */
export function launchableInstanceTypes(): string[] {
  return EC2_INSTANCE_TYPES.map((t) => t.name);
}

export class Machines extends Construct {
  readonly vpc: ec2.Vpc;
  readonly securityGroup: ec2.SecurityGroup;
  readonly agentRole: iam.Role;
  readonly instanceProfile: iam.InstanceProfile;
  readonly launchTemplate: ec2.LaunchTemplate;
  /** The hint queues' dead-letter queue, `drover-<controller>-dlq`. */
  readonly deadLetterQueue: sqs.Queue;
  /**
   * This deployment of the controller: the UUID that ends the stack's id
   * (arn:...:stack/<name>/<uuid>). CloudFormation makes a new one each time the stack is created
   * and keeps it across updates, so it tells a controller deployed again under the same name from
   * the one before it (shared/provider/ec2/ec2-provider.ts says what it protects). A deploy-time
   * value, resolved by CloudFormation.
   */
  readonly deploymentId: string;
  private readonly controllerId: string;

  constructor(scope: Construct, id: string, props: MachinesProps) {
    super(scope, id);
    this.controllerId = props.controllerId;
    this.deploymentId = Fn.select(2, Fn.split('/', Aws.STACK_ID));

    // Public subnets only, no NAT gateway: nothing is paid for the network at rest. Instances get
    // public addresses to reach the API, SQS, S3 and nodejs.org; nothing reaches them unless a
    // user exposes an application (below).
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr('10.42.0.0/16'),
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'machines', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 20 }],
      // Restricting the (unused) default security group takes a custom-resource Lambda; drover
      // instances never use it, they get the group below.
      restrictDefaultSecurityGroup: false,
    });
    // Rejected traffic only: the security signal, at a cost proportional to attacks, not to work.
    this.vpc.addFlowLog('RejectedTraffic', {
      trafficType: ec2.FlowLogTrafficType.REJECT,
      destination: ec2.FlowLogDestination.toCloudWatchLogs(
        new logs.LogGroup(this, 'FlowLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
      ),
    });

    // No ingress, ever: agents poll their queue and call the API, nothing calls them. Exposed
    // applications' ports are opened on a group of each application's own, which the provisioner
    // makes at run time (shared/provider/ec2/firewall.ts); nothing may change this one's rules.
    this.securityGroup = new ec2.SecurityGroup(this, 'MachineSecurityGroup', {
      vpc: this.vpc,
      description: `drover ${props.controllerId} machines: no ingress; exposed applications have groups of their own`,
      allowAllOutbound: true,
    });

    this.agentRole = new iam.Role(this, 'AgentRole', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: `drover ${props.controllerId} machine agents: receive from their machine queue; Session Manager for ssh`,
    });
    // Agents may only receive from (and acknowledge on) their own machine's queue: a queue named
    // `drover-<controller>-m-*` whose instance tag is the caller's instance. The machine id is not
    // known when this role is made and every instance shares it, so the provisioner tags each
    // queue with its instance's ARN once the instance exists (shared/messaging/queue-instance-tag.ts),
    // and `${ec2:SourceInstanceARN}`, set on every request signed with instance-role credentials,
    // names the caller. An agent can then neither take nor delete another machine's hints; and it
    // can read or change no other machine's entities, because the agent API serves an instance
    // only as its own machine (functions/api/agent-identity.ts).
    this.agentRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'OwnMachineQueue',
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
        resources: [this.queueArn(`${machineQueuePrefix(props.controllerId)}*`)],
        conditions: { StringEquals: { [`aws:ResourceTag/${INSTANCE_TAG}`]: '${ec2:SourceInstanceARN}' } },
      }),
    );
    this.grantSessionManager();
    this.instanceProfile = new iam.InstanceProfile(this, 'AgentProfile', { role: this.agentRole });

    this.launchTemplate = new ec2.LaunchTemplate(this, 'MachineLaunchTemplate', {
      instanceProfile: this.instanceProfile,
      securityGroup: this.securityGroup,
      // IMDSv2 only, one hop: a request forged through a workload (SSRF) cannot read the
      // instance role's credentials (the agent's identity), and neither can containers on it.
      requireImdsv2: true,
      httpTokens: ec2.LaunchTemplateHttpTokens.REQUIRED,
      httpEndpoint: true,
      httpPutResponseHopLimit: 1,
      instanceMetadataTags: false,
    });

    this.deadLetterQueue = new sqs.Queue(this, 'HintDeadLetters', {
      queueName: deadLetterQueueName(props.controllerId),
      // The same retention shared/messaging/machine-queues.ts gives it when it has to make it.
      retentionPeriod: Duration.days(1),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
  }

  /**
   * `drover ssh` and `scp` reach an instance through Session Manager (cli/ssh/aws-ssh.ts): the SSM
   * agent of Canonical's Ubuntu images registers the instance and opens its sessions over its own
   * outbound channels, so no security group ever admits port 22. The instance role gets Session
   * Manager's minimum for an instance (https://docs.aws.amazon.com/systems-manager/latest/userguide/getting-started-add-permissions-to-existing-profile.html),
   * not AmazonSSMManagedInstanceCore (which adds documents, parameters, inventory and patching):
   * registering names EC2 instances of this account and region (IAM takes no policy variable as a
   * whole resource, so "its own instance" cannot be written), and the message channels have no
   * resource to scope to (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsessionmanagermessagegatewayservice.html).
   */
  private grantSessionManager(): void {
    this.agentRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'RegisterOwnInstanceWithSsm',
        actions: ['ssm:UpdateInstanceInformation'],
        resources: [`arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:instance/*`],
      }),
    );
    this.agentRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SessionManagerChannels',
        actions: [
          'ssmmessages:CreateControlChannel',
          'ssmmessages:CreateDataChannel',
          'ssmmessages:OpenControlChannel',
          'ssmmessages:OpenDataChannel',
        ],
        resources: ['*'],
      }),
    );
  }

  /** The provisioner's environment for the ec2 provider (functions/provisioner/env.ts). */
  provisionerEnvironment(): FunctionEnvironment {
    return {
      DEPLOYMENT_ID: this.deploymentId,
      // Every public subnet, one per availability zone: machines spread over them and fall back
      // to another zone when one has no capacity (shared/provider/ec2/subnets.ts).
      SUBNET_IDS: Fn.join(
        ',',
        this.vpc.publicSubnets.map((subnet) => subnet.subnetId),
      ),
      SECURITY_GROUP_IDS: this.securityGroup.securityGroupId,
      // Where the firewall makes each exposed application's group (shared/provider/ec2/firewall.ts).
      VPC_ID: this.vpc.vpcId,
      LAUNCH_TEMPLATE_ID: this.launchTemplate.launchTemplateId!,
      INSTANCE_PROFILE_ARN: this.instanceProfile.instanceProfileArn,
    };
  }

  /**
   * The provisioner starts, tags and terminates this controller's instances, makes, attaches,
   * detaches and deletes its storage volumes (grantVolumes), and creates and deletes machine
   * queues; its scheduled reconcile also keeps the applications' security groups (grantFirewall).
   */
  grantProvisioner(role: iam.Role): void {
    const stack = Stack.of(this);
    const ec2Arn = (resource: string, resourceName: string, account?: string) =>
      stack.formatArn({ service: 'ec2', resource, resourceName, ...(account !== undefined ? { account } : {}) });
    const instances = ec2Arn('instance', '*');
    const volumes = ec2Arn('volume', '*');
    const add = (statement: iam.PolicyStatement) => role.addToPrincipalPolicy(statement);

    // Instance and volume ids are not known before launch, so RunInstances needs instance/* and
    // volume/* — but only when the request tags them as this controller's, of this deployment
    // (ec2-provider.ts tags both).
    const taggedByThisDeployment = {
      [`aws:RequestTag/${CONTROLLER_TAG}`]: this.controllerId,
      [`aws:RequestTag/${DEPLOYMENT_TAG}`]: this.deploymentId,
    };
    // The instance, besides: only a type drover's catalogue can choose (a stolen or confused
    // provisioner cannot start a p5.48xlarge), and only with IMDSv2 required (the agent's
    // identity is its role's credentials, which IMDSv1 would hand to any forged request). These
    // keys describe the instance resource alone, so the volume gets a statement of its own: a
    // condition on a key a resource lacks fails, and would refuse the launch.
    // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html
    add(
      new iam.PolicyStatement({
        sid: 'LaunchTaggedInstances',
        actions: ['ec2:RunInstances'],
        resources: [instances],
        conditions: {
          StringEquals: {
            ...taggedByThisDeployment,
            'ec2:InstanceType': launchableInstanceTypes(),
            'ec2:MetadataHttpTokens': 'required',
          },
        },
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'LaunchTaggedVolumes',
        actions: ['ec2:RunInstances'],
        resources: [volumes],
        conditions: { StringEquals: taggedByThisDeployment },
      }),
    );
    // The launch's other resources: this launch template, security group and these subnets. The
    // network interface RunInstances creates has no id in advance either; it is created in one of
    // the subnets and with the group named here.
    add(
      new iam.PolicyStatement({
        sid: 'LaunchIntoMachineNetwork',
        actions: ['ec2:RunInstances'],
        resources: [
          ec2Arn('launch-template', this.launchTemplate.launchTemplateId!),
          ec2Arn('security-group', this.securityGroup.securityGroupId),
          ...this.vpc.publicSubnets.map((subnet) => ec2Arn('subnet', subnet.subnetId)),
          ec2Arn('network-interface', '*'),
        ],
      }),
    );
    // Images: any of Canonical's (shared/provider/ec2/images.ts picks the newest for the series);
    // image ARNs have no account, and which images exist changes every few days.
    add(
      new iam.PolicyStatement({
        sid: 'LaunchCanonicalImages',
        actions: ['ec2:RunInstances'],
        resources: [ec2Arn('image', '*', '')],
        conditions: { StringEquals: { 'ec2:Owner': CANONICAL_OWNER_ID } },
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'TagOnLaunchOnly',
        actions: ['ec2:CreateTags'],
        resources: [instances, volumes],
        conditions: { StringEquals: { 'ec2:CreateAction': 'RunInstances' } },
      }),
    );
    this.grantVolumes(role, taggedByThisDeployment);
    // Termination is bounded by the controller's tag only, not the deployment's: the provisioner
    // only terminates instances it recorded or listed by its own deployment's tag, and instances
    // started before instances carried a deployment tag must stay removable by remove-machine.
    add(
      new iam.PolicyStatement({
        sid: 'TerminateOwnInstances',
        actions: ['ec2:TerminateInstances'],
        resources: [instances],
        conditions: { StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: this.controllerId } },
      }),
    );
    // EC2's Describe* actions support no resource-level permissions: `*` is the only resource
    // they accept. They read metadata (instances by the controller's tag, Canonical's images, the
    // zones of the machine subnets, named when every zone refused a launch).
    add(
      new iam.PolicyStatement({
        sid: 'DescribeInstancesAndImages',
        actions: ['ec2:DescribeInstances', 'ec2:DescribeImages', 'ec2:DescribeSubnets', 'ec2:DescribeVolumes'],
        resources: ['*'],
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'PassAgentRole',
        actions: ['iam:PassRole'],
        resources: [this.agentRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
      }),
    );
    // TagQueue binds a machine's queue to its instance (shared/messaging/queue-instance-tag.ts).
    this.grantQueueManagement(role, ['sqs:DeleteQueue', 'sqs:TagQueue']);
  }

  /**
   * The `ebs` storage pool's volumes (shared/provider/ec2/volumes.ts): made only encrypted, of an
   * EBS type, and with this controller's and deployment's tags in the request (tagged by the same
   * call, never afterwards); attached, detached and deleted only when they carry this controller's
   * tag, and attached to or detached from only this controller's instances. A pool's `kms-key-id`
   * names a key whose own key policy must let these roles use it (docs/deploy-to-aws.md, 'Storage').
   */
  private grantVolumes(role: iam.Role, taggedByThisDeployment: Record<string, string>): void {
    const stack = Stack.of(this);
    const ec2Arn = (resource: string) => stack.formatArn({ service: 'ec2', resource, resourceName: '*' });
    const volumes = ec2Arn('volume');
    const ownTag = { [`aws:ResourceTag/${CONTROLLER_TAG}`]: this.controllerId };
    const add = (statement: iam.PolicyStatement) => role.addToPrincipalPolicy(statement);
    add(
      new iam.PolicyStatement({
        sid: 'CreateTaggedEncryptedVolumes',
        actions: ['ec2:CreateVolume'],
        resources: [volumes],
        conditions: {
          StringEquals: { ...taggedByThisDeployment, 'ec2:VolumeType': [...EBS_VOLUME_TYPES] },
          Bool: { 'ec2:Encrypted': 'true' },
        },
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'TagVolumesOnCreateOnly',
        actions: ['ec2:CreateTags'],
        resources: [volumes],
        conditions: { StringEquals: { 'ec2:CreateAction': 'CreateVolume', [`aws:RequestTag/${CONTROLLER_TAG}`]: this.controllerId } },
      }),
    );
    // Both of an attachment's resources, the volume and the instance, carry the controller's tag.
    add(
      new iam.PolicyStatement({
        sid: 'AttachOwnVolumesToOwnInstances',
        actions: ['ec2:AttachVolume', 'ec2:DetachVolume'],
        resources: [volumes, ec2Arn('instance')],
        conditions: { StringEquals: ownTag },
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'DeleteOwnVolumes',
        actions: ['ec2:DeleteVolume'],
        resources: [volumes],
        conditions: { StringEquals: ownTag },
      }),
    );
  }

  /**
   * The firewall (shared/provider/ec2/firewall.ts): one security group per exposed application,
   * created in the machines' VPC only with this controller's and deployment's tags, and changed,
   * deleted or put on an instance only when it (and the instance) carries this controller's tag.
   * No statement names the machines' shared group for a rule change: its ingress stays empty.
   * Only the scheduled reconcile runs the firewall (shared/provisioner/reconcile-firewall.ts),
   * so only its role gets this.
   */
  grantFirewall(role: iam.Role): void {
    const stack = Stack.of(this);
    const ec2Arn = (resource: string, resourceName: string) => stack.formatArn({ service: 'ec2', resource, resourceName });
    const groups = ec2Arn('security-group', '*');
    const ownTag = { [`aws:ResourceTag/${CONTROLLER_TAG}`]: this.controllerId };
    const add = (statement: iam.PolicyStatement) => role.addToPrincipalPolicy(statement);
    // The applications' groups, found by the controller's tag; like every EC2 Describe* action,
    // it accepts no resource but `*`.
    add(new iam.PolicyStatement({ sid: 'DescribeApplicationGroups', actions: ['ec2:DescribeSecurityGroups'], resources: ['*'] }));
    add(
      new iam.PolicyStatement({
        sid: 'CreateTaggedApplicationGroups',
        actions: ['ec2:CreateSecurityGroup'],
        resources: [groups],
        conditions: {
          StringEquals: {
            [`aws:RequestTag/${CONTROLLER_TAG}`]: this.controllerId,
            [`aws:RequestTag/${DEPLOYMENT_TAG}`]: this.deploymentId,
          },
        },
      }),
    );
    // The VPC is CreateSecurityGroup's other resource; tag keys describe the new group alone.
    add(
      new iam.PolicyStatement({
        sid: 'CreateApplicationGroupsInMachineVpc',
        actions: ['ec2:CreateSecurityGroup'],
        resources: [ec2Arn('vpc', this.vpc.vpcId)],
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'TagApplicationGroupsOnCreateOnly',
        actions: ['ec2:CreateTags'],
        resources: [groups],
        conditions: {
          StringEquals: { 'ec2:CreateAction': 'CreateSecurityGroup', [`aws:RequestTag/${CONTROLLER_TAG}`]: this.controllerId },
        },
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'ChangeOwnApplicationGroups',
        actions: ['ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupIngress', 'ec2:DeleteSecurityGroup'],
        resources: [groups],
        conditions: { StringEquals: ownTag },
      }),
    );
    // ModifyInstanceAttribute names the instance and every group it is to have: this
    // controller's instances and groups, and the shared group, which every instance keeps (this
    // grant cannot change its rules).
    add(
      new iam.PolicyStatement({
        sid: 'AttachGroupsToOwnInstances',
        actions: ['ec2:ModifyInstanceAttribute'],
        resources: [ec2Arn('instance', '*'), groups],
        conditions: { StringEquals: ownTag },
      }),
    );
    add(
      new iam.PolicyStatement({
        sid: 'KeepSharedGroupOnInstances',
        actions: ['ec2:ModifyInstanceAttribute'],
        resources: [ec2Arn('security-group', this.securityGroup.securityGroupId)],
      }),
    );
  }

  /** What the tear-down custom resource is told (functions/teardown/handler.ts). */
  tearDownEnvironment(): FunctionEnvironment {
    return { CONTROLLER_ID: this.controllerId, DEPLOYMENT_ID: this.deploymentId };
  }

  /**
   * The tear-down (shared/provisioner/tear-down.ts) lists and terminates this controller's
   * instances, and lists and deletes its applications' security groups and its machine queues,
   * when the stack is deleted.
   */
  grantTearDown(role: iam.Role): void {
    const stack = Stack.of(this);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'TerminateOwnInstances',
        actions: ['ec2:TerminateInstances'],
        resources: [stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' })],
        conditions: { StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: this.controllerId } },
      }),
    );
    // The applications' security groups the provisioner made (shared/provider/ec2/firewall.ts),
    // which CloudFormation does not know and the VPC cannot be deleted with.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DeleteOwnApplicationGroups',
        actions: ['ec2:DeleteSecurityGroup'],
        resources: [stack.formatArn({ service: 'ec2', resource: 'security-group', resourceName: '*' })],
        conditions: { StringEquals: { [`aws:ResourceTag/${CONTROLLER_TAG}`]: this.controllerId } },
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DescribeInstances',
        actions: ['ec2:DescribeInstances', 'ec2:DescribeSecurityGroups'],
        resources: ['*'],
      }),
    );
    const machineQueues = this.queueArn(`${machineQueuePrefix(this.controllerId)}*`);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'DeleteMachineQueues', actions: ['sqs:DeleteQueue'], resources: [machineQueues] }),
    );
    // ListQueues supports no resource-level permissions: granted on a queue ARN it is denied, and
    // the tear-down fails after terminating the instances (the stack ends in DELETE_FAILED).
    // It reads queue URLs only; what it may delete is bounded by the statement above.
    // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsqs.html
    role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'ListQueues', actions: ['sqs:ListQueues'], resources: ['*'] }));
  }

  /**
   * The changes function re-creates a machine queue that is missing when it sends a hint, and
   * binds it to its machine's instance (TagQueue: shared/messaging/queue-instance-tag.ts), or the
   * agent could not receive from it until its next resync.
   */
  grantHints(role: iam.Role): void {
    this.grantQueueManagement(role, ['sqs:SendMessage', 'sqs:TagQueue']);
  }

  /**
   * What shared/messaging/machine-queues.ts calls to ensure a machine queue and its dead-letter
   * queue (CreateQueue, GetQueueUrl, GetQueueAttributes for the DLQ's ARN, SetQueueAttributes to
   * converge), plus `machineOnly` on machine queues alone — never on the dead-letter queue.
   */
  private grantQueueManagement(role: iam.Role, machineOnly: string[]): void {
    const ensure = ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes', 'sqs:SetQueueAttributes'];
    const machineQueues = this.queueArn(`${machineQueuePrefix(this.controllerId)}*`);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'MachineQueues', actions: [...ensure, ...machineOnly], resources: [machineQueues] }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'HintDeadLetterQueue', actions: ensure, resources: [this.deadLetterQueue.queueArn] }),
    );
  }

  private queueArn(name: string): string {
    return Stack.of(this).formatArn({ service: 'sqs', resource: name });
  }
}
