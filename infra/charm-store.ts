// Where charm archives live (shared/charmstore/charm-store.ts: `charms/<sha256>.tar.gz`). Private:
// encrypted, TLS only, every kind of public access blocked. Agents never read it directly; they
// fetch archives through the agent API with their machine credential.
import { RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** The prefix every charm archive is stored under. */
export const CHARM_PREFIX = 'charms/';

export interface CharmStoreProps {
  /** RETAIN (the default) keeps the charms when the stack is deleted. */
  removalPolicy: RemovalPolicy;
}

export class CharmStore extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: CharmStoreProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      publicReadAccess: false,
      // Archives are content-addressed (the key is their SHA-256): a version could never differ.
      versioned: false,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the api function reads and writes this bucket, under content-addressed keys; its requests are in the function log. ' +
        'Server access logs would need a second bucket (itself unlogged) and cost at rest for no added audit value.',
    });
  }

  /**
   * The api function stores and serves archives. ListBucket (on the charm prefix only) is what
   * makes S3 answer a missing archive with NoSuchKey, which the charm store maps to "not found",
   * instead of AccessDenied.
   */
  grantReadWrite(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'CharmArchives',
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [this.bucket.arnForObjects(`${CHARM_PREFIX}*`)],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'CharmListing',
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${CHARM_PREFIX}*`] } },
      }),
    );
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${CHARM_PREFIX}*]`,
      reason: 'Charm archives are named by their SHA-256 when uploaded; the grant covers the charm prefix of this bucket only.',
    });
  }
}
