// Turns a plan's changes into one TransactWriteItems. Each change's `expect` becomes its
// condition expression, so the transaction commits only if every fact the plan relied on still
// holds (the mgo/txn asserts of Juju).
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Change, Expect } from '../../domain/plan.js';
import { InconsistentPlanError, mergeChanges } from '../../domain/merge-changes.js';
import { applicationDataRefs } from '../../domain/leadership.js';
import { storable, toItem } from './codec.js';
import { ATTR, keyOf, stuckPkOf } from './keys.js';
import type { Store } from './store.js';

/** DynamoDB's limit. Operations are designed to stay under 25 actions; this is the backstop. */
export const MAX_TRANSACTION_ACTIONS = 100;

class Expression {
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};
  private counter = 0;

  name(attribute: string): string {
    const existing = Object.entries(this.names).find(([, a]) => a === attribute);
    if (existing) return existing[0];
    const placeholder = `#n${this.counter++}`;
    this.names[placeholder] = attribute;
    return placeholder;
  }

  /** A dotted name (`agentStatus.current`) addresses a nested attribute. */
  path(attribute: string): string {
    return attribute
      .split('.')
      .map((part) => this.name(part))
      .join('.');
  }

  value(v: unknown): string {
    const placeholder = `:v${this.counter++}`;
    this.values[placeholder] = storable(v);
    return placeholder;
  }

  attributes() {
    return {
      ...(Object.keys(this.names).length ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

function condition(x: Expression, expect: Expect | undefined, mustExist: boolean): string {
  const parts: string[] = [];
  if (mustExist) parts.push(`attribute_exists(${x.name(ATTR.pk)})`);
  if (expect?.life !== undefined) {
    const lives = Array.isArray(expect.life) ? expect.life : [expect.life];
    parts.push(`(${lives.map((l) => `${x.name('life')} = ${x.value(l)}`).join(' OR ')})`);
  }
  for (const [a, v] of Object.entries(expect?.equals ?? {})) parts.push(`${x.path(a)} = ${x.value(v)}`);
  for (const a of expect?.absent ?? []) parts.push(`attribute_not_exists(${x.name(a)})`);
  for (const [a, v] of Object.entries(expect?.contains ?? {})) {
    for (const member of Array.isArray(v) ? v : [v]) parts.push(`contains(${x.name(a)}, ${x.value(member)})`);
  }
  for (const [a, v] of Object.entries(expect?.lacks ?? {})) parts.push(`NOT contains(${x.name(a)}, ${x.value(v)})`);
  for (const [a, n] of Object.entries(expect?.atLeast ?? {})) parts.push(`${x.path(a)} >= ${x.value(n)}`);
  for (const [a, n] of Object.entries(expect?.setSize ?? {})) {
    parts.push(n === 0 ? `attribute_not_exists(${x.name(a)})` : `size(${x.name(a)}) = ${x.value(n)}`);
  }
  return parts.join(' AND ');
}

function updateExpression(model: string, x: Expression, change: Extract<Change, { op: 'update' }>, now: string): string {
  const set: string[] = [];
  const remove: string[] = [];
  const add: string[] = [];
  const del: string[] = [];
  for (const [a, v] of Object.entries(change.set ?? {})) {
    if (v === undefined) remove.push(x.name(a));
    else set.push(`${x.name(a)} = ${x.value(v)}`);
  }
  for (const a of change.unset ?? []) remove.push(x.name(a));
  for (const [a, n] of Object.entries(change.add ?? {})) add.push(`${x.name(a)} ${x.value(n)}`);
  for (const [a, members] of Object.entries(change.addToSet ?? {})) {
    if (members.length) add.push(`${x.name(a)} ${x.value(new Set(members))}`);
  }
  for (const [a, members] of Object.entries(change.removeFromSet ?? {})) {
    if (members.length) del.push(`${x.name(a)} ${x.value(new Set(members))}`);
  }
  const life = change.set?.life;
  const stuck = change.stuck ?? (life === 'dying' || life === 'dead' ? 'mark' : undefined);
  if (stuck === 'mark') {
    set.push(`${x.name(ATTR.stuckPk)} = ${x.value(stuckPkOf(model, change.ref))}`);
    // Keep the first time it got stuck: Dying → Dead is still the same removal.
    set.push(`${x.name(ATTR.stuckSince)} = if_not_exists(${x.name(ATTR.stuckSince)}, ${x.value(now)})`);
  } else if (stuck === 'clear') {
    remove.push(x.name(ATTR.stuckPk), x.name(ATTR.stuckSince));
  }
  return [
    set.length ? `SET ${set.join(', ')}` : '',
    remove.length ? `REMOVE ${remove.join(', ')}` : '',
    add.length ? `ADD ${add.join(', ')}` : '',
    del.length ? `DELETE ${del.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export function toTransactItems(store: Store, changes: Change[]) {
  const now = store.now().toISOString();
  return mergeChanges(changes).map((change) => {
    const x = new Expression();
    const model = change.model ?? store.model;
    const Key = keyOf(model, change.ref);
    switch (change.op) {
      case 'create': {
        const ConditionExpression = `attribute_not_exists(${x.name(ATTR.pk)})`;
        return {
          Put: {
            TableName: store.table,
            Item: toItem(model, change.ref, change.value, change.shard),
            ConditionExpression,
            ...x.attributes(),
          },
        };
      }
      case 'put':
        return { Put: { TableName: store.table, Item: toItem(model, change.ref, change.value) } };
      case 'update': {
        const ConditionExpression = condition(x, change.expect, true);
        const UpdateExpression = updateExpression(model, x, change, now);
        return { Update: { TableName: store.table, Key, UpdateExpression, ConditionExpression, ...x.attributes() } };
      }
      case 'remove': {
        const ConditionExpression = condition(x, change.expect, true);
        return { Delete: { TableName: store.table, Key, ConditionExpression, ...x.attributes() } };
      }
      case 'check': {
        const ConditionExpression = condition(x, change.expect, true);
        return { ConditionCheck: { TableName: store.table, Key, ConditionExpression, ...x.attributes() } };
      }
      case 'absent': {
        const ConditionExpression = `attribute_not_exists(${x.name(ATTR.pk)})`;
        return { ConditionCheck: { TableName: store.table, Key, ConditionExpression, ...x.attributes() } };
      }
    }
  });
}

/**
 * An application's leadership items (lease, leader settings) go in the same transaction that
 * removes the application, whichever rule removes it: nothing refers to them but the
 * application, and a later application of the same name must start without a leader. Plain
 * deletes, as they may not exist.
 */
function applicationDataDeletes(store: Store, changes: Change[]) {
  return changes
    .filter((c) => c.op === 'remove' && c.ref.kind === 'application')
    .flatMap((c) => applicationDataRefs((c.ref as { name: string }).name).map((ref) => keyOf(c.model ?? store.model, ref)))
    .map((Key) => ({ Delete: { TableName: store.table, Key } }));
}

export async function commit(store: Store, changes: Change[]): Promise<void> {
  const items = [...toTransactItems(store, changes), ...applicationDataDeletes(store, changes)];
  if (items.length > MAX_TRANSACTION_ACTIONS) {
    throw new InconsistentPlanError(`transaction of ${items.length} actions exceeds ${MAX_TRANSACTION_ACTIONS}`);
  }
  await store.doc.send(new TransactWriteCommand({ TransactItems: items }));
}
