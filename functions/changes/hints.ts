// The hint step of the `changes` function: a stream record → a hint on the queue of every machine
// whose view it changed (shared/messaging/notify.ts decides which). Duplicates are harmless, so a
// record retried after a later step failed hints again at no risk; a record that is not a
// drover entity is logged and skipped, as failing it would hold the shard.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBRecord } from 'aws-lambda';
import { BatchReads } from '#shared/messaging/batch-reads.js';
import { planHint } from '#shared/messaging/hint-plan.js';
import { notify, SentHints, type NotifierDeps } from '#shared/messaging/notify.js';
import { imagesOf } from '#shared/state/engine/stream-record.js';
import type { RecordHandler } from '../stream-batch.js';
import { modelOfRecord, perModel } from '../stream-models.js';

export function hintStep(deps: NotifierDeps, logger: Logger): (records: DynamoDBRecord[]) => RecordHandler {
  return (records) => {
    // Shared by the batch's records of one model: one hint per machine and entity is enough
    // (SentHints), and one read of each unit, relation and scope the batch names, made before the
    // first record (BatchReads); each model has its own machines, queues and store.
    const forModel = perModel(deps.store, (store) => {
      const reads = new BatchReads();
      const plans = records.filter((r) => modelOfRecord(r) === store.model).map((r) => planHint(imagesOf(r)));
      // A failed prefetch costs nothing but its help: each record then reads what it needs itself.
      const prefetched = reads.prefetch(store, plans).catch(() => undefined);
      return { deps: { ...deps, store }, sent: new SentHints(), reads, prefetched };
    });
    return async (record) => {
      const context = { eventID: record.eventID, eventName: record.eventName, sequenceNumber: record.dynamodb?.SequenceNumber };
      const model = modelOfRecord(record);
      if (model === undefined) {
        // The controller's own items (model names) concern no machine; anything else without a
        // model in its key is not drover's.
        if (imagesOf(record).kind !== 'modelName')
          logger.warn('skipping a record that is not a drover entity', { ...context, why: 'its key names no model' });
        return;
      }
      const { deps: modelDeps, sent, reads, prefetched } = forModel(model);
      try {
        await prefetched;
        const outcome = await notify(modelDeps, imagesOf(record), sent, reads);
        if (outcome.kind === 'malformed')
          logger.warn('skipping a record that is not a drover entity', { ...context, model, why: outcome.why });
        else if (outcome.kind === 'sent') logger.debug('hinted', { ...context, model, hint: outcome.hint, machines: outcome.machines });
      } catch (error) {
        logger.error('hints failed; the record is reported for retry', { ...context, model, error: error as Error });
        throw error;
      }
    };
  };
}
