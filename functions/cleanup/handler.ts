// The cleanup function, on the table's stream: every cleanup document written or advanced gets
// one bounded batch of its work run (shared/state/cleanup). A batch that leaves work over records
// its cursor, which is itself a stream record, so the function wakes again for the next batch:
// no invocation grows with the model. A schedule (runDueCleanups) picks up documents whose
// `notBefore` has passed and any whose stream record was lost.
import { Logger } from '@aws-lambda-powertools/logger';
import { releaseAbandonedLeases } from '../../shared/state/leadership.js';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Cleanup } from '../../shared/domain/entities.js';
import { listCleanups, runCleanupBatch } from '../../shared/state/cleanup/run-cleanups.js';
import { imagesOf } from '../../shared/state/stream-record.js';
import { createStore, type Store } from '../../shared/state/store.js';

export interface CleanupDeps {
  store: Store;
  logger?: Logger;
}

export function createCleanupHandler(deps: CleanupDeps) {
  const logger = deps.logger ?? new Logger({ serviceName: 'cleanup' });
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    const done = new Set<string>();
    for (const record of event.Records) {
      const images = imagesOf(record);
      const cleanup = images.newImage as Cleanup | undefined;
      // Only documents that exist now have work; a REMOVE means it finished.
      if (images.kind !== 'cleanup' || !cleanup?.id || done.has(cleanup.id)) continue;
      done.add(cleanup.id);
      try {
        const result = await runCleanupBatch(deps.store, cleanup.id);
        logger.info('cleanup batch', { id: cleanup.id, result });
      } catch (e) {
        logger.error('cleanup batch failed', { id: cleanup.id, error: e as Error });
        if (record.dynamodb?.SequenceNumber) failures.push({ itemIdentifier: record.dynamodb.SequenceNumber });
      }
    }
    return { batchItemFailures: failures };
  };
}

/** The schedule's sweep: one batch of every cleanup that is due. */
export async function runDueCleanups(store: Store): Promise<number> {
  const now = store.now().toISOString();
  let ran = 0;
  for (const cleanup of await listCleanups(store)) {
    if (cleanup.notBefore && cleanup.notBefore > now) continue;
    await runCleanupBatch(store, cleanup.id);
    ran++;
  }
  return ran;
}

/**
 * The whole periodic sweep: due cleanups, and the leases that have run out (their leaders did
 * not renew them) — nothing else tells the other units that a silent leader is gone, so without
 * this they would claim only at their next resync.
 */
export async function sweep(store: Store): Promise<number> {
  await releaseAbandonedLeases(store);
  return runDueCleanups(store);
}

let lambdaStore: Store | undefined;
const storeFromEnv = () => (lambdaStore ??= createStore({ table: process.env.TABLE_NAME ?? '' }));
let lambdaHandler: ReturnType<typeof createCleanupHandler> | undefined;

/** The Lambda entry points; built on first use from the function's environment. */
export const handler = (event: DynamoDBStreamEvent) => (lambdaHandler ??= createCleanupHandler({ store: storeFromEnv() }))(event);
export const sweepHandler = () => sweep(storeFromEnv());
