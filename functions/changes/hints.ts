// The hint step of the `changes` function: a stream record → a hint on the queue of every machine
// whose view it changed (shared/messaging/notify.ts decides which). The batch's hints go out
// together, each machine's in one send (shared/messaging/hint-outbox.ts). Duplicates are
// harmless, so a record retried after a later step failed hints again at no risk; a record that
// is not a drover entity is logged and skipped, as failing it would hold the shard.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBRecord } from 'aws-lambda';
import { BatchReads } from '#shared/messaging/batch-reads.js';
import { planHint } from '#shared/messaging/hint-plan.js';
import { HintOutbox } from '#shared/messaging/hint-outbox.js';
import { admitRecordedInstance } from '#shared/messaging/queue-instance-tag.js';
import { HintDeliveryError, notify, notifyPlan, SentHints, type NotifierDeps } from '#shared/messaging/notify.js';
import { crossModelEcho } from '#shared/messaging/cross-model-echo.js';
import { imagesOf } from '#shared/state/engine/stream-record.js';
import type { RecordHandler } from '../stream-batch.js';
import { modelOfRecord, perModel } from '../stream-models.js';

/** Items of the controller's own, outside every model (shared/state/engine/keys.ts). */
const CONTROLLER_KINDS: ReadonlySet<string | undefined> = new Set(['modelName', 'modelDefaults']);

export function hintStep(deps: NotifierDeps, logger: Logger): (records: DynamoDBRecord[]) => RecordHandler {
  return (records) => {
    // Shared by the batch's records of one model: one hint per machine and entity is enough
    // (SentHints), one read of each unit, relation and scope the batch names, made before the
    // first record (BatchReads), and one send to each machine with all its hints (HintOutbox);
    // each model has its own machines, queues and store.
    const forModel = perModel(deps.store, (store) => {
      const reads = new BatchReads();
      const plans = records.filter((r) => modelOfRecord(r) === store.model).map((r) => planHint(imagesOf(r)));
      // A failed prefetch costs nothing but its help: each record then reads what it needs itself.
      const prefetched = reads.prefetch(store, plans).catch(() => undefined);
      const outbox = new HintOutbox({
        sqs: deps.sqs,
        controllerId: deps.controllerId,
        model: store.model,
        onQueueCreated: (machineId, url) => admitRecordedInstance(store, deps.sqs, machineId, url),
      });
      return { store, sent: new SentHints(), reads, prefetched, outbox };
    });
    const contextOf = (record: DynamoDBRecord) => ({
      eventID: record.eventID,
      eventName: record.eventName,
      sequenceNumber: record.dynamodb?.SequenceNumber,
    });

    /** Every record's machines, in order, then the sends: what failed, by the record to retry from. */
    async function hintBatch(): Promise<Map<number, Error>> {
      const failed = new Map<number, Error>();
      const models = new Set<string>();
      for (const [index, record] of records.entries()) {
        const model = modelOfRecord(record);
        if (model === undefined) {
          // The controller's own items (model names, model defaults) concern no machine; anything
          // else without a model in its key is not drover's.
          if (!CONTROLLER_KINDS.has(imagesOf(record).kind))
            logger.warn('skipping a record that is not a drover entity', { ...contextOf(record), why: 'its key names no model' });
          continue;
        }
        models.add(model);
        const { store, sent, reads, prefetched, outbox } = forModel(model);
        try {
          await prefetched;
          const outcome = await notify(store, imagesOf(record), outbox, index, sent, reads);
          const echo = await crossModelEcho(store, imagesOf(record), reads);
          if (echo) {
            models.add(echo.model);
            const other = forModel(echo.model);
            await other.prefetched;
            await notifyPlan(other.store, echo.plan, other.outbox, index, other.sent, other.reads);
          }
          if (outcome.kind === 'malformed')
            logger.warn('skipping a record that is not a drover entity', { ...contextOf(record), model, why: outcome.why });
          else if (outcome.kind === 'queued')
            logger.debug('hinting', { ...contextOf(record), model, hint: outcome.hint, machines: outcome.machines });
        } catch (error) {
          failed.set(index, error as Error);
        }
      }
      for (const model of models)
        for (const [index, failures] of await forModel(model).outbox.finish())
          if (!failed.has(index)) failed.set(index, new HintDeliveryError(failures));
      return failed;
    }

    let batch: Promise<Map<number, Error>> | undefined;
    const indexOf = new Map(records.map((record, index) => [record.dynamodb?.SequenceNumber, index]));
    return async (record) => {
      // The first record hints the whole batch; each record then fails if its own hints did.
      batch ??= hintBatch();
      const error = (await batch).get(indexOf.get(record.dynamodb?.SequenceNumber) ?? -1);
      if (error) {
        logger.error('hints failed; the record is reported for retry', { ...contextOf(record), model: modelOfRecord(record), error });
        throw error;
      }
    };
  };
}
