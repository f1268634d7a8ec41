// Every item of a test's table, for asserting that a refused operation changed nothing.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from '#shared/state/engine/store.js';

export async function dumpTable(store: Store): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await store.doc.send(new ScanCommand({ TableName: store.table, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  const id = (i: Record<string, unknown>) => `${String(i.pk)}|${String(i.sk)}`;
  return items.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}
