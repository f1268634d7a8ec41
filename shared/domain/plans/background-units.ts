// add-unit -n beyond what one API call adds: the rest is written down as an `addUnits` cleanup
// document and added in bounded batches by the cleanup runner
// (shared/state/operations/cleanup/add-units.ts), so the call returns in about a second however
// large -n is. The application counts the units still coming (`pendingUnits`), which status shows
// as its scale, as Juju shows a scaling application's "ready/wanted".
//
// Every transaction that adds units counts them off the document, asserting the count it read:
// a batch run twice (at-least-once delivery, or a runner that died before recording its progress)
// adds each unit once, since the second run's transaction is refused. The refused runner then
// leaves the document to the one that counted it off: racing it chunk for chunk, the one that
// re-reads after every refusal would lose every race and give up as "state changing too quickly".
import type { Application, Cleanup, Model } from '../entities.js';
import { notAlive } from '../errors.js';
import { done, refs, type Change, type Plan } from '../plan.js';
import { unitsPerTransaction } from './deploy.js';
import type { NewUnits } from './new-units.js';

/** Units one API call adds itself: 8 transactions, about a second; the rest go to the background. */
export const IN_CALL_UNITS = 64;

export type AddUnitsWork = Cleanup & { remaining: number; incarnation: string };

/**
 * The document for `count` more units of `name`, and its count on the application. Refused as
 * planNewUnits refuses units when the application is gone or no longer Alive (destroyed since the
 * call's own units were added).
 */
export function planScheduleUnits(application: Application | undefined, name: string, count: number, id: string, now: string): Change[] {
  if (application?.life !== 'alive') throw notAlive(`cannot add unit to application "${name}": application is not found or not alive`);
  const work: AddUnitsWork = {
    id,
    kind: 'addUnits',
    target: application.name,
    createdAt: now,
    remaining: count,
    incarnation: application.createdAt,
  };
  return [
    { op: 'create', ref: refs.cleanup(id), value: { ...work } },
    {
      op: 'update',
      ref: refs.application(application.name),
      add: { pendingUnits: count },
      expect: { life: 'alive', equals: { createdAt: application.createdAt } },
    },
  ];
}

/**
 * A transaction of the background: the units it added, and how many the document has left; none
 * added with some left means another runner is adding them.
 */
export interface ChunkOutcome {
  added: number;
  remaining: number;
}

const stopped: ChunkOutcome = { added: 0, remaining: 0 };

/**
 * What the document's next transaction does: add the next units (at most a transaction's share),
 * or nothing more: the document is finished, or its application is gone, not Alive, another of
 * its name, or its model is being destroyed, and the rest is given up; or another runner counted
 * units off since this one last knew the count (`known`), and this one leaves the rest to it.
 */
export function nextChunk(
  work: AddUnitsWork | undefined,
  model: Model,
  application: Application | undefined,
  known: number,
): { kind: 'add'; count: number; work: AddUnitsWork; application: Application } | { kind: 'stop'; plan: Plan<ChunkOutcome> } {
  if (!work?.remaining) return { kind: 'stop', plan: done(stopped) };
  if (work.remaining !== known) return { kind: 'stop', plan: done({ added: 0, remaining: work.remaining }) };
  if (application?.createdAt !== work.incarnation || application.life !== 'alive' || model.life !== 'alive')
    return { kind: 'stop', plan: { changes: planGiveUp(work, application), result: stopped } };
  return { kind: 'add', count: Math.min(unitsPerTransaction(application), work.remaining), work, application };
}

/** The next units (planNewUnits'), counted off the document and the application in their transaction. */
export function planChunk(work: AddUnitsWork, units: NewUnits, count: number): Plan<ChunkOutcome> {
  return { changes: [...units.changes, ...countOff(work, count)], result: { added: count, remaining: work.remaining - count } };
}

/** Goes with the transaction that adds `count` of the document's units: counts them off both. */
function countOff(work: AddUnitsWork, count: number): Change[] {
  return [
    { op: 'update', ref: refs.cleanup(work.id), add: { remaining: -count }, expect: { equals: { remaining: work.remaining } } },
    { op: 'update', ref: refs.application(work.target), add: { pendingUnits: -count } },
  ];
}

/**
 * The rest given up: the application is no longer Alive (destroyed, or another of the name
 * deployed since), or the model is being destroyed. Its count goes from the application it was for.
 */
function planGiveUp(work: AddUnitsWork, application: Application | undefined): Change[] {
  const changes: Change[] = [
    { op: 'update', ref: refs.cleanup(work.id), set: { remaining: 0 }, expect: { equals: { remaining: work.remaining } } },
  ];
  if (application?.createdAt === work.incarnation)
    changes.push({ op: 'update', ref: refs.application(application.name), add: { pendingUnits: -work.remaining } });
  return changes;
}
