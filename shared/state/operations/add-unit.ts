import { randomUUID } from 'node:crypto';
import type { Application, Machine, Model, Relation } from '../../domain/entities.js';
import { invalidArgument, notFound } from '../../domain/errors.js';
import { IN_CALL_UNITS, planScheduleUnits } from '../../domain/plans/background-units.js';
import { planNewUnits, type NewUnits } from '../../domain/plans/new-units.js';
import { UNITS_PER_TRANSACTION, unitsPerTransaction } from '../../domain/plans/deploy.js';
import { pendingRequirements } from '../../domain/required-relations.js';
import { refs } from '../../domain/plan.js';
import { cleanupId } from '../../domain/plans/cleanups.js';
import { foundModel } from '../queries/model.js';
import { readPlacements } from '../queries/placement.js';
import { getBatch, getMany } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export interface AddUnitsResult {
  units: string[];
  machines: string[];
  /** Units left to be added in the background (shared/domain/plans/background-units.ts). */
  remainingUnits: number;
}

export interface AddUnitsOptions {
  count?: number;
  to?: string[];
  /**
   * Add the first IN_CALL_UNITS (and all those placed with `--to`, whose refusals the caller must
   * hear) and leave the rest to the background: what the API asks, so that a call returns promptly.
   */
  background?: boolean;
}

/**
 * add-unit -n: each chunk of units is one transaction (so none grows with -n); a chunk either
 * lands whole or not at all.
 */
export async function addUnits(store: Store, application: string, options: AddUnitsOptions = {}): Promise<AddUnitsResult> {
  const count = options.count ?? 1;
  if (!Number.isInteger(count) || count < 1) throw invalidArgument('--num-units must be a positive integer');
  const inCall = options.background ? Math.min(count, Math.max(IN_CALL_UNITS, options.to?.length ?? 0)) : count;
  const result: AddUnitsResult = { units: [], machines: [], remainingUnits: 0 };
  // A chunk of units with storage may add fewer than asked (unitsPerTransaction): go on from what it added.
  for (let done = 0; done < inCall;) {
    const chunk = Math.min(UNITS_PER_TRANSACTION, inCall - done);
    const added = await addUnitChunk(store, application, chunk, options.to?.slice(done, done + chunk));
    done += added.units.length;
    result.units.push(...added.units);
    result.machines.push(...added.machines);
  }
  if (count > inCall) {
    await scheduleUnits(store, application, count - inCall);
    result.remainingUnits = count - inCall;
  }
  return result;
}

const cannotAdd = (application: string) => `cannot add unit to application "${application}"`;

async function addUnitChunk(store: Store, application: string, count: number, to: string[] | undefined): Promise<NewUnits> {
  // The chunk's unit numbers and new machines' ids, kept across attempts.
  const reservations = new NumberReservations(store);
  const attempt: Attempt<NewUnits> = async (store) => {
    const [[modelItem, app], placements] = await Promise.all([
      getBatch<[Model, Application]>(store, [refs.model(), refs.application(application)]),
      readPlacements(store, to),
    ]);
    const model = foundModel(store, modelItem);
    if (!app) throw notFound(`${cannotAdd(application)}: application "${application}" not found`);
    const fits = Math.min(count, unitsPerTransaction(app));
    const planned = await planUnits(store, { model, application: app, count: fits, placements }, reservations);
    return { changes: planned.changes, result: planned };
  };
  return runOperation(store, cannotAdd(application), attempt, { speculate: true });
}

/**
 * planNewUnits with the numbers reserved for it and the application's required relations read
 * fresh: the plan does not assert which of them are met. Shared with the background batches.
 */
export async function planUnits(
  store: Store,
  input: { model: Model; application: Application; count: number; placements: (Machine | undefined)[] },
  reservations: NumberReservations,
): Promise<NewUnits> {
  const { application } = input;
  const relations = await getMany<Relation>(store, application.relations.map(refs.relation), { fresh: true });
  return reservations.plan((numbers) =>
    planNewUnits({ ...input, numbers, pending: pendingRequirements(application, relations), now: store.now().toISOString() }),
  );
}

async function scheduleUnits(store: Store, application: string, count: number): Promise<void> {
  // One document per call: two add-units at once each count off their own.
  const id = `${cleanupId('addUnits', application)}:${randomUUID()}`;
  const attempt: Attempt<void> = async (store) => {
    const [app] = await getBatch<[Application]>(store, [refs.application(application)]);
    return { changes: planScheduleUnits(app, application, count, id, store.now().toISOString()), result: undefined };
  };
  await runOperation(store, cannotAdd(application), attempt);
}
