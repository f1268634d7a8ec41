// The state table's protection against deletion, both ways: a retained table (the default) is
// deletion-protected, one the stack may delete (drover:retainState=false) is not — otherwise
// `cdk destroy` would fail on it. A bare stack holding only the table: the full app is
// synthesised in stack.test.ts, once, with the default.
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createDroverApp } from '../../infra/drover-app.js';
import { StateTable } from '../../infra/state-table.js';

function tableWith(removalPolicy: RemovalPolicy) {
  const stack = new Stack(new App(), 'TableOnly');
  new StateTable(stack, 'State', { removalPolicy });
  const tables = Object.values(Template.fromStack(stack).findResources('AWS::DynamoDB::Table'));
  expect(tables).toHaveLength(1);
  return tables[0]!;
}

describe('state table deletion', () => {
  it('is protected from deletion when retained', () => {
    const table = tableWith(RemovalPolicy.RETAIN);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
  });

  it('stays deletable when the stack may delete it', () => {
    const table = tableWith(RemovalPolicy.DESTROY);
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
  });
});

describe('a state table restored to a point in time', () => {
  const existing = {
    tableName: 'drover-main-StateTable-restored',
    streamArn: 'arn:aws:dynamodb:eu-west-1:123456789012:table/drover-main-StateTable-restored/stream/2026-11-26T10:00:00.000',
  };

  it('is used as it is: the stack makes no table, and names and reads the given one', () => {
    const stack = new Stack(new App(), 'Restored');
    const state = new StateTable(stack, 'State', { removalPolicy: RemovalPolicy.RETAIN, existing });
    expect(Object.keys(Template.fromStack(stack).findResources('AWS::DynamoDB::Table'))).toEqual([]);
    expect(stack.resolve(state.table.tableName)).toBe(existing.tableName);
    expect(state.table.tableStreamArn).toBe(existing.streamArn);
  });

  it('is named by both settings or neither', () => {
    expect(() => createDroverApp({ context: { 'drover:stateTable': existing.tableName } })).toThrow(
      "give both drover:stateTable and drover:stateTableStream (the table's LatestStreamArn), or neither",
    );
  });
});
