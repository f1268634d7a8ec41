// Reads and writes of agent presence: one small item per machine saying when its agent was last
// seen (shared/domain/presence.ts). Not a lifecycle fact, so not a plan or a transaction: a
// single conditional PutItem (half the cost of a one-item transaction).
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { refs } from '../../domain/plan.js';
import { toItem } from '../engine/codec.js';
import { getEach } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

/** A day: long past any threshold, so only the presence of machines gone for good expires (DynamoDB TTL on `expiresAt`). */
export const PRESENCE_RETENTION_SECONDS = 24 * 3600;

interface PresenceItem {
  machine: string;
  seenAt: string;
  expiresAt: number;
}

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

/** When each machine's agent was last seen, for those that have a presence item. */
export async function readPresence(store: Store, machines: string[]): Promise<Record<string, string>> {
  const items = await getEach<PresenceItem>(store, machines.map(refs.presence));
  const lastSeen: Record<string, string> = {};
  for (const item of items) if (item) lastSeen[item.machine] = item.seenAt;
  return lastSeen;
}
