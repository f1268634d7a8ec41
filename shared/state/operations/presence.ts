// Writes of agent presence: one small item per machine saying when its agent was last seen
// (shared/domain/presence.ts; status reads them in shared/state/queries/presence.ts). Not a lifecycle fact, so not a plan or a transaction: a
// single conditional PutItem (half the cost of a one-item transaction).
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { refs } from '../../domain/plan.js';
import { toItem } from '../engine/codec.js';
import type { Store } from '../engine/store.js';
import type { PresenceItem } from '../queries/presence.js';

/** A day: long past any threshold, so only the presence of machines gone for good expires (DynamoDB TTL on `expiresAt`). */
export const PRESENCE_RETENTION_SECONDS = 24 * 3600;

/**
 * Records that the machine's agent was seen now, unless another writer (another API container)
 * already recorded a time within `minIntervalMs`: the condition makes the write a no-op then, and
 * a failed condition writes nothing, so it sends no stream record. Returns whether it wrote.
 */
export async function recordPresence(store: Store, machine: string, minIntervalMs: number): Promise<boolean> {
  const now = store.now();
  const item: PresenceItem = {
    machine,
    seenAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + PRESENCE_RETENTION_SECONDS,
  };
  try {
    await store.doc.send(
      new PutCommand({
        TableName: store.table,
        Item: toItem(store.model, refs.presence(machine), { ...item }),
        ConditionExpression: 'attribute_not_exists(#seenAt) OR #seenAt < :staleBefore',
        ExpressionAttributeNames: { '#seenAt': 'seenAt' },
        ExpressionAttributeValues: { ':staleBefore': new Date(now.getTime() - minIntervalMs).toISOString() },
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}
