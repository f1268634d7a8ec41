// Where charm archives live (shared/charmstore/s3-charm-store.ts: `charms/<sha256>.tar.gz`, and
// uploads waiting to be checked in `uploads/<sha256>`). Private: encrypted, TLS only, every kind
// of public access blocked. No one but the api function holds a grant on it: the CLI uploads and
// agents download with URLs the api function presigns with its own role, for one object each and
// a few minutes (docs/architecture.md, 'Charms').
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** The prefix every charm archive is stored under. */
export const CHARM_PREFIX = 'charms/';
/** The prefix uploads arrive under, before deploy checks them and copies them to CHARM_PREFIX. */
export const UPLOAD_PREFIX = 'uploads/';
/** An upload deploy never took (abandoned, or refused) is gone after this long. */
export const UPLOAD_EXPIRY_DAYS = 1;

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
      lifecycleRules: [{ id: 'ExpireUploads', prefix: UPLOAD_PREFIX, expiration: Duration.days(UPLOAD_EXPIRY_DAYS) }],
    });
  }

  /**
   * The api function stores archives, checks uploads (GetObject on uploads/) and copies them to
   * charms/ (CopyObject is GetObject on its source and PutObject on its target), and presigns the
   * uploads' PUTs and the agents' GETs, which S3 allows only as far as this role may. ListBucket
   * (on these prefixes only) is what makes S3 answer a missing object with NoSuchKey, which the
   * charm store maps to "not found", instead of AccessDenied. It deletes an upload it refused
   * (DeleteObject on uploads/ only: a stored charm is never deleted by the function).
   */
  grantReadWrite(role: iam.Role): void {
    const prefixes = [CHARM_PREFIX, UPLOAD_PREFIX];
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'CharmArchives',
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: prefixes.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'RefusedUploads',
        actions: ['s3:DeleteObject'],
        resources: [this.bucket.arnForObjects(`${UPLOAD_PREFIX}*`)],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'CharmListing',
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': prefixes.map((prefix) => `${prefix}*`) } },
      }),
    );
  }
}
