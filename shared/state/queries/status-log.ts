// Reads an entity's status history (shared/domain/status-log.ts), newest first, a bounded page.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StatusLogEntry, StatusLogType } from '../../domain/status-log.js';
import { fromItem } from '../engine/codec.js';
import { ATTR, statusLogPartition } from '../engine/keys.js';
import type { Store } from '../engine/store.js';

export async function readStatusLog(
  store: Store,
  entity: string,
  options: { type?: StatusLogType; limit?: number } = {},
): Promise<StatusLogEntry[]> {
  const limit = options.limit ?? 20;
  const entries: StatusLogEntry[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await store.doc.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: '#pk = :pk',
        ...(options.type ? { FilterExpression: '#type = :type' } : {}),
        ExpressionAttributeNames: { '#pk': ATTR.pk, ...(options.type ? { '#type': 'type' } : {}) },
        ExpressionAttributeValues: { ':pk': statusLogPartition(store.model, entity), ...(options.type ? { ':type': options.type } : {}) },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    entries.push(...(out.Items ?? []).map((i) => fromItem<StatusLogEntry>(i)));
    start = out.LastEvaluatedKey;
  } while (start && entries.length < limit);
  // Oldest first, as Juju prints it.
  return entries.slice(0, limit).reverse();
}
