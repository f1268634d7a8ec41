// The cleanup step of the `changes` function: a cleanup document written or advanced gets one
// bounded batch of its work run (shared/state/operations/cleanup). A batch that leaves work over records its
// cursor, which is itself a stream record, so the step comes again for the next batch: no
// invocation grows with the model. The scheduled sweep (functions/cleanup/handler.ts) picks up
// documents whose `notBefore` has passed and any whose stream record was lost.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Cleanup } from '#shared/domain/entities.js';
import { runCleanupBatch } from '#shared/state/operations/cleanup/run-cleanups.js';
import type { Store } from '#shared/state/engine/store.js';
import { imagesOf } from '#shared/state/engine/stream-record.js';
import type { RecordHandler } from '../stream-batch.js';
import { modelOfRecord, perModel } from '../stream-models.js';

export function cleanupStep(store: Store, logger: Logger): (records: DynamoDBRecord[]) => RecordHandler {
  return () => {
    // A document several records of the batch advanced needs one run: it reads the latest state.
    // Cleanup ids name their target (`units:mysql`, shared/domain/plans/cleanups.ts), which another
    // model may have too: each model remembers its own.
    const forModel = perModel(store, (store) => ({ store, ran: new Set<string>() }));
    return async (record) => {
      const images = imagesOf(record);
      const cleanup = images.newImage as Cleanup | undefined;
      const model = modelOfRecord(record);
      // Only documents that exist now have work; a REMOVE means it finished.
      if (images.kind !== 'cleanup' || !cleanup?.id || model === undefined) return;
      const { store: modelStore, ran } = forModel(model);
      if (ran.has(cleanup.id)) return;
      ran.add(cleanup.id);
      try {
        logger.info('cleanup batch', { model, id: cleanup.id, result: await runCleanupBatch(modelStore, cleanup.id) });
      } catch (error) {
        logger.error('cleanup batch failed; the record is reported for retry', { model, id: cleanup.id, error: error as Error });
        throw error;
      }
    };
  };
}
