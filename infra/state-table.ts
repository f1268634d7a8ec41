// The one DynamoDB table that holds all of drover's state. Its key schema, indexes and stream are
// those of shared/state/engine/table.ts (the definition DynamoDB Local gets), spelled from the same
// constants in shared/state/engine/keys.ts, so the code and the deployed table cannot drift apart.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { ATTR, INDEX, RUN_LEASE_PREFIX } from '#shared/state/engine/keys.js';

export interface StateTableProps {
  /** RETAIN (the default) keeps the table, and the model in it, when the stack is deleted. */
  removalPolicy: RemovalPolicy;
  /**
   * A table made outside the stack — one restored to a point in time (docs/deploy-to-aws.md,
   * "Restore the state to an earlier time") — used instead of the stack's own. The stack then never changes or
   * deletes it: its stream, TTL, recovery and protection are set where it was made.
   */
  existing?: ExistingTable;
  /**
   * Encrypt the table with a customer-managed KMS key the stack makes (`drover:stateTableKms=true`):
   * rotated yearly, kept as long as the table is (a table outlives nothing without its key), and
   * usable only by the roles the table is granted to. Absent: the AWS-managed key.
   */
  customerManagedKey?: boolean;
}

export interface ExistingTable {
  tableName: string;
  /** Its stream's ARN (describe-table's LatestStreamArn): the stream consumers read it. */
  streamArn: string;
}

/**
 * What a function does with the table; each maps to the few DynamoDB actions it needs. `list`
 * reads listings only (Query for keys, then BatchGetItem), never one item by key: the watchdog.
 */
export type TableAccess = 'list' | 'read' | 'read-write' | 'read-write-batch';

// TransactWriteItems has no IAM action of its own: each item in a transaction is authorised as
// the PutItem/UpdateItem/DeleteItem/ConditionCheckItem it contains (shared/state/engine/commit.ts).
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];
// Only cleanup deletes relation settings in bounded BatchWriteItem calls (cleanup/settings.ts).
const BATCH_WRITE_ACTIONS = ['dynamodb:BatchWriteItem'];

export class StateTable extends Construct {
  readonly table: dynamodb.ITable;
  /** The customer-managed key, when the table is encrypted with one. */
  readonly key?: kms.Key;

  constructor(scope: Construct, id: string, props: StateTableProps) {
    super(scope, id);
    if (props.existing) {
      this.table = dynamodb.Table.fromTableAttributes(this, 'Table', {
        tableName: props.existing.tableName,
        tableStreamArn: props.existing.streamArn,
      });
      return;
    }
    const key = props.customerManagedKey
      ? new kms.Key(this, 'Key', {
          description: 'drover: encrypts the state table (its secrets among the rest)',
          enableKeyRotation: true,
          removalPolicy: props.removalPolicy,
        })
      : undefined;
    this.key = key;
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: ATTR.pk, type: dynamodb.AttributeType.STRING },
      sortKey: { name: ATTR.sk, type: dynamodb.AttributeType.STRING },
      // On demand: nothing is paid for capacity while no one is working (cost at rest ~ storage).
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // The stream consumers (functions/stream-consumers.ts) need what an item was and what it became.
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // By default the AWS-managed key (aws/dynamodb): visible in the template and in CloudTrail,
      // no key to pay for, and no kms: grants needed by the functions. Or the stack's own key.
      ...(key
        ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: key }
        : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
      // Status history entries expire (shared/domain/status-log.ts: Juju keeps 336 h).
      timeToLiveAttribute: 'expiresAt',
      removalPolicy: props.removalPolicy,
      // A retained table is the model: deleting it by hand (console, CLI, a stray script) takes
      // turning protection off first (docs/deploy-to-aws.md). One the stack may delete
      // (drover:retainState=false) must stay deletable, or `cdk destroy` would fail on it.
      deletionProtection: props.removalPolicy !== RemovalPolicy.DESTROY,
    });
    // Both indexes are KEYS_ONLY: listings read keys, then BatchGetItem the items consistently.
    table.addGlobalSecondaryIndex({
      indexName: INDEX.byCollection,
      partitionKey: { name: ATTR.collectionPk, type: dynamodb.AttributeType.STRING },
      sortKey: { name: ATTR.collectionSk, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });
    table.addGlobalSecondaryIndex({
      indexName: INDEX.stuck,
      partitionKey: { name: ATTR.stuckPk, type: dynamodb.AttributeType.STRING },
      sortKey: { name: ATTR.stuckSince, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });
    this.table = table;
  }

  /**
   * Grants exactly the item actions of `access`: reads are GetItem (but for `list`) and BatchGetItem
   * (shared/state/engine/reads.ts) and Query on the table and its two named indexes (reads.ts, stuck.ts,
   * cleanup); never Scan, never an index wildcard.
   */
  grant(grantee: iam.IGrantable, access: TableAccess): void {
    const indexArns = Object.values(INDEX).map((name) => `${this.table.tableArn}/index/${name}`);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'StateRead',
        actions: access === 'list' ? ['dynamodb:BatchGetItem'] : ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
        resources: [this.table.tableArn],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'StateQuery', actions: ['dynamodb:Query'], resources: [this.table.tableArn, ...indexArns] }),
    );
    // DynamoDB uses the table's key on the caller's behalf: whoever reads or writes the table
    // needs it, on that key alone.
    if (this.key)
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({ sid: 'StateKey', actions: ['kms:Decrypt', 'kms:Encrypt'], resources: [this.key.keyArn] }),
      );
    if (access === 'list' || access === 'read') return;
    const writes = access === 'read-write-batch' ? [...WRITE_ACTIONS, ...BATCH_WRITE_ACTIONS] : WRITE_ACTIONS;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'StateWrite', actions: writes, resources: [this.table.tableArn] }),
    );
  }

  /**
   * Taking and releasing a scheduled job's run lease (shared/state/operations/run-lease.ts): a
   * conditional PutItem and DeleteItem of the lease items only, by their partition key.
   */
  grantRunLease(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'RunLease',
        actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RUN_LEASE_PREFIX}*`] } },
      }),
    );
  }
}
