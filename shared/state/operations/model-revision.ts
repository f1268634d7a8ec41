// The model's revision: a counter the `changes` function moves once per stream batch that changed
// the model (functions/changes/revision.ts), so a reader that only wants to know whether anything
// changed (the dashboard, docs/dashboard.md, "What it shows") asks one item instead of reading the model.
// Not in the operations' transactions: one item every transaction of a model wrote would serialise
// them all. Written outside plans because no decision rests on it, like presence.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { refs } from '../../domain/plan.js';
import { ATTR, keyOf } from '../engine/keys.js';
import type { Store } from '../engine/store.js';

/**
 * Renewed on every move, so only the revision of a model gone (or idle this long) expires
 * (DynamoDB TTL on `expiresAt`): a destroyed model leaves nothing behind for good.
 */
export const MODEL_REVISION_RETENTION_SECONDS = 14 * 24 * 3600;

/**
 * Moves the model's revision on. One UpdateItem, safe to repeat (a retried batch moves it twice:
 * a cursor only has to move). A new item starts from the clock in milliseconds, so a revision that
 * expired and comes back is still past every value it had before: no reader sees an old value again.
 */
export async function moveModelRevision(store: Store): Promise<void> {
  const now = store.now().getTime();
  await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: keyOf(store.model, refs.modelRevision()),
      UpdateExpression: 'SET #kind = :kind, #revision = if_not_exists(#revision, :start) + :one, #expiresAt = :expiresAt',
      ExpressionAttributeNames: { '#kind': ATTR.kind, '#revision': 'revision', '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: {
        ':kind': 'modelRevision',
        ':start': now,
        ':one': 1,
        ':expiresAt': Math.floor(now / 1000) + MODEL_REVISION_RETENTION_SECONDS,
      },
    }),
  );
}
