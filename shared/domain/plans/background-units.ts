// add-unit -n beyond what one API call adds: the rest is written down as an `addUnits` cleanup
// document and added in bounded batches by the cleanup runner
// (shared/state/operations/cleanup/add-units.ts), so the call returns in about a second however
// large -n is. The application counts the units still coming (`pendingUnits`), which status shows
// as its scale, as Juju shows a scaling application's "ready/wanted".
//
// Every transaction that adds units counts them off the document, asserting the count it read:
// a batch run twice (at-least-once delivery, or a runner that died before recording its progress)
// adds each unit once, since the second run's transaction is refused and re-plans from the new count.
import type { Application, Cleanup } from '../entities.js';
import { refs, type Change } from '../plan.js';

/** Units one API call adds itself: 8 transactions, about a second; the rest go to the background. */
export const IN_CALL_UNITS = 64;

export type AddUnitsWork = Cleanup & { remaining: number; incarnation: string };

/** The document for `count` more units of `application`, and its count on the application. */
export function planScheduleUnits(application: Application, count: number, id: string, now: string): Change[] {
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

/** Goes with the transaction that adds `count` of the document's units: counts them off both. */
export function countOff(work: AddUnitsWork, count: number): Change[] {
  return [
    { op: 'update', ref: refs.cleanup(work.id), add: { remaining: -count }, expect: { equals: { remaining: work.remaining } } },
    { op: 'update', ref: refs.application(work.target), add: { pendingUnits: -count } },
  ];
}

/**
 * The rest given up: the application is no longer Alive (destroyed, or another of the name
 * deployed since), or the model is being destroyed. Its count goes from the application it was for.
 */
export function planGiveUp(work: AddUnitsWork, application: Application | undefined): Change[] {
  const changes: Change[] = [
    { op: 'update', ref: refs.cleanup(work.id), set: { remaining: 0 }, expect: { equals: { remaining: work.remaining } } },
  ];
  if (application?.createdAt === work.incarnation)
    changes.push({ op: 'update', ref: refs.application(application.name), add: { pendingUnits: -work.remaining } });
  return changes;
}
