// "settings": deletes the unit settings of a removed relation, a batch at a time.
// death-and-destruction.txt: "those documents are guaranteed to be unreferenced and unwatched, by
// virtue of the relation's prior removal", so plain batch deletes, outside any transaction, are safe.
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, settingsPartition } from '../../engine/keys.js';
import type { CleanupStep } from './step.js';

export const SETTINGS_BATCH = 25;

export const deleteRelationSettings: CleanupStep = async (store, cleanup) => {
  const out = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.pk, '#sk': ATTR.sk },
      ExpressionAttributeValues: { ':pk': settingsPartition(store.model, Number(cleanup.target)) },
      ProjectionExpression: '#pk, #sk',
      Limit: SETTINGS_BATCH,
      ConsistentRead: true,
    }),
  );
  let requests = (out.Items ?? []).map((Key) => ({ DeleteRequest: { Key } }));
  while (requests.length) {
    const result = await store.doc.send(new BatchWriteCommand({ RequestItems: { [store.table]: requests } }));
    requests = (result.UnprocessedItems?.[store.table] ?? []) as typeof requests;
  }
  // Deleting from the front, the next batch is always the first page again.
  return out.LastEvaluatedKey ? { cursor: 'more' } : {};
};
