// The state table's protection against deletion, both ways: a retained table (the default) is
// deletion-protected, one the stack may delete (drover:retainState=false) is not — otherwise
// `cdk destroy` would fail on it. A bare stack holding only the table: the full app is
// synthesised in stack.test.ts, once, with the default.
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
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
