// The revision step of the `changes` function: the model's revision moves once per batch for each
// model the batch changed (shared/state/operations/model-revision.ts), so the dashboard learns of
// a change from one item. This function already sees every change, so no operation's transaction
// writes anything more for it. Records of the revision item itself move nothing, or each move
// would bring the next, and nor do agent presence's; the mapping's filter keeps both out already
// (functions/stream-consumers.ts), this keeps an unfiltered delivery harmless.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBRecord } from 'aws-lambda';
import type { EntityRef } from '#shared/domain/plan.js';
import { moveModelRevision } from '#shared/state/operations/model-revision.js';
import type { Store } from '#shared/state/engine/store.js';
import { imagesOf } from '#shared/state/engine/stream-record.js';
import type { RecordHandler } from '../stream-batch.js';
import { modelOfRecord, perModel } from '../stream-models.js';

export const REVISION_KIND: EntityRef['kind'] = 'modelRevision';

/**
 * Kinds that are no change to anyone: the revision itself, and agent presence, a heartbeat. The
 * `changes` mapping's filter keeps their records out (functions/stream-consumers.ts); the step
 * skips them too, so an unfiltered delivery moves nothing. One list for both.
 */
export const UNCHANGING_KINDS: readonly EntityRef['kind'][] = ['presence', REVISION_KIND];
const UNREVISED: ReadonlySet<string> = new Set(UNCHANGING_KINDS);

export function revisionStep(store: Store, logger: Logger): (records: DynamoDBRecord[]) => RecordHandler {
  return () => {
    // Moved at most once per model per batch: every record of the batch was committed before the
    // batch came, so a reader that sees the move reads what all of them did. A retried batch moves
    // it again, which only costs its reader one needless read.
    const forModel = perModel(store, (store) => ({ store, moved: false }));
    return async (record) => {
      const model = modelOfRecord(record);
      const kind = imagesOf(record).kind;
      if (model === undefined || (kind !== undefined && UNREVISED.has(kind))) return;
      const state = forModel(model);
      if (state.moved) return;
      try {
        await moveModelRevision(state.store);
        state.moved = true;
      } catch (error) {
        logger.error('moving the model revision failed; the record is reported for retry', { model, error: error as Error });
        throw error;
      }
    };
  };
}
