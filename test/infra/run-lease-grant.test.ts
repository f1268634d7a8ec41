// The watchdog's one write, its run lease (functions/single-run.ts), proved against its grant:
// the lease code runs against a mocked DynamoDB, and each request it sends is evaluated by an IAM
// policy simulator under the statements infra/state-table.ts gives the role
// (test/support/iam-simulation.ts), with the partition key as dynamodb:LeadingKeys.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, describe, expect, it } from 'vitest';
import { StateTable } from '../../infra/state-table.js';
import { RemovalPolicy } from 'aws-cdk-lib';
import { runLeaseKey } from '#shared/state/engine/keys.js';
import { withRunLease } from '#shared/state/operations/run-lease.js';
import type { Store } from '#shared/state/engine/store.js';
import {
  ACCOUNT,
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

const TABLE = 'drover-state';
const TABLE_ARN = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`;

function watchdogStatements(): PolicyStatement[] {
  const stack = new Stack(new App(), 'drover-sim');
  const state = new StateTable(stack, 'State', {
    removalPolicy: RemovalPolicy.RETAIN,
    existing: { tableName: TABLE, streamArn: `${TABLE_ARN}/stream/2026-11-29T00:00:00.000` },
  });
  const role = new iam.Role(stack, 'WatchdogRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  state.grant(role, 'list');
  state.grantRunLease(role);
  return statementsOf(stack, role);
}

async function leaseRequests(): Promise<IamRequest[]> {
  const doc = mockClient(DynamoDBDocumentClient);
  doc.on(PutCommand).resolves({});
  doc.on(DeleteCommand).resolves({});
  const client = new DynamoDBClient({ region: REGION });
  const store = { client, doc: DynamoDBDocumentClient.from(client), table: TABLE, model: 'default', now: () => new Date() } as Store;
  await withRunLease(store, { job: 'watchdog', holder: 'req-1', durationMs: 60_000 }, async () => 'ran');
  const requests = doc.calls().flatMap((call) => {
    const command = call.args[0] as unknown as { constructor: { name: string }; input: Record<string, unknown> };
    return requestsOf('dynamodb', { name: command.constructor.name, input: command.input } as SentCommand, () => ({}), TABLE_ARN);
  });
  doc.restore();
  return requests;
}

describe("the watchdog's run lease, simulated against its grant", () => {
  let statements: PolicyStatement[];
  let requests: IamRequest[];
  beforeAll(async () => {
    statements = watchdogStatements();
    requests = await leaseRequests();
  });

  it('takes and releases the lease: a put and a delete of its item', () => {
    expect(requests.map((r) => [r.action, r.context?.['dynamodb:LeadingKeys']])).toEqual([
      ['dynamodb:PutItem', [runLeaseKey('watchdog').pk]],
      ['dynamodb:DeleteItem', [runLeaseKey('watchdog').pk]],
    ]);
  });

  it('is allowed both', async () => {
    expect(await refused(statements, requests)).toEqual([]);
  });

  it('may write no other item: not an entity, not another key', async () => {
    for (const pk of ['default#MACHINE#0', 'CONTROLLER#MODEL#default'])
      expect(
        await decide(statements, { action: 'dynamodb:PutItem', resource: TABLE_ARN, context: { 'dynamodb:LeadingKeys': [pk] } }),
        pk,
      ).not.toBe('Allowed');
  });

  it('is granted no write it does not use (its reads serve the watchdog itself)', () => {
    expect(unused(statements, requests, ['dynamodb:BatchGetItem', 'dynamodb:Query'])).toEqual([]);
  });
});
