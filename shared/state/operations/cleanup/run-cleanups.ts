// Runs cleanup documents (shared/domain/plans/cleanups.ts). Each call does one bounded batch of a
// document's work and records where it got to, so no invocation grows with the model and a
// process that dies mid-way loses nothing: the next run starts from the recorded cursor, and
// every step it repeats is idempotent.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Cleanup, CleanupKind } from '../../../domain/entities.js';
import { collections, keyOf } from '../../engine/keys.js';
import { getCleanup, getMany, listAll } from '../../engine/reads.js';
import type { Store } from '../../engine/store.js';
import { addUnitsInBatches } from './add-units.js';
import { assignWaitingUnits } from './assign-units.js';
import { destroyOrphanedSubordinates } from './dying-subordinates.js';
import { forceApplication, forceMachine, forceUnit } from './force.js';
import { destroyModelContents } from './model.js';
import { deleteOwnerSecrets } from './owner-secrets.js';
import { deleteRelationSettings } from './settings.js';
import type { CleanupStep } from './step.js';
import { destroyUnitsOfDyingApplication } from './units.js';

const steps: Record<CleanupKind, CleanupStep> = {
  units: destroyUnitsOfDyingApplication,
  settings: deleteRelationSettings,
  assignUnits: assignWaitingUnits,
  addUnits: addUnitsInBatches,
  dyingSubordinates: destroyOrphanedSubordinates,
  forceDestroyUnit: forceUnit,
  forceDestroyMachine: forceMachine,
  forceDestroyApplication: forceApplication,
  model: destroyModelContents,
  ownerSecrets: deleteOwnerSecrets,
};

export type CleanupResult = 'done' | 'more' | 'gone' | 'not-yet';

/** Runs one batch of one cleanup document. */
export async function runCleanupBatch(store: Store, id: string): Promise<CleanupResult> {
  const cleanup = (await getCleanup(store, id)) as (Cleanup & { cursor?: string }) | undefined;
  if (!cleanup) return 'gone';
  if (cleanup.notBefore && cleanup.notBefore > store.now().toISOString()) return 'not-yet';
  const step = steps[cleanup.kind];
  if (!step) throw new Error(`no cleanup step for kind "${cleanup.kind}"`);
  const outcome = await step(store, cleanup);
  const Key = keyOf(store.model, { kind: 'cleanup', id });
  if (outcome.cursor === undefined) {
    await store.doc.send(new DeleteCommand({ TableName: store.table, Key }));
    return 'done';
  }
  // Recording progress also writes a stream record, which wakes the cleanup function again.
  // Two runners may work one document at once (at-least-once delivery plus the timer): steps are
  // idempotent, and a runner that finds the document finished by the other just stops.
  try {
    await store.doc.send(
      new UpdateCommand({
        TableName: store.table,
        Key,
        UpdateExpression: `SET #cursor = :cursor, #batches = if_not_exists(#batches, :zero) + :one${outcome.notBefore ? ', #notBefore = :notBefore' : ''}`,
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: {
          '#cursor': 'cursor',
          '#batches': 'batches',
          '#pk': 'pk',
          ...(outcome.notBefore ? { '#notBefore': 'notBefore' } : {}),
        },
        ExpressionAttributeValues: {
          ':cursor': outcome.cursor,
          ':zero': 0,
          ':one': 1,
          ...(outcome.notBefore ? { ':notBefore': outcome.notBefore } : {}),
        },
      }),
    );
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return 'gone';
    throw e;
  }
  return 'more';
}

/** Runs one cleanup document to the end. */
export async function runCleanup(store: Store, id: string): Promise<void> {
  while ((await runCleanupBatch(store, id)) === 'more');
}

/** Every pending cleanup document, oldest first. */
export async function listCleanups(store: Store): Promise<Cleanup[]> {
  const docs = await getMany<Cleanup>(store, await listAll(store, collections.cleanups(store.model)));
  return docs.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/**
 * Runs cleanups until none is left that can run now (cleanups may schedule more cleanups).
 * Tests and the local controller's timer use it; on AWS the stream drives runCleanupBatch.
 */
export async function runAllCleanups(store: Store, maxRounds = 100): Promise<number> {
  let ran = 0;
  for (let round = 0; round < maxRounds; round++) {
    const now = store.now().toISOString();
    const pending = (await listCleanups(store)).filter((c) => !c.notBefore || c.notBefore <= now);
    if (pending.length === 0) return ran;
    for (const cleanup of pending) {
      await runCleanup(store, cleanup.id);
      ran++;
    }
  }
  throw new Error(`cleanups still pending after ${maxRounds} rounds`);
}
