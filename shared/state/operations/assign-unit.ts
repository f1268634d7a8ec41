import type { Relation, Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { planAssignUnit, type AssignResult } from '../../domain/plans/assign-unit.js';
import { getApplication, getMachine, getMany, getUnit } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** Gives a waiting unit its machine, if its required relations are now satisfied; otherwise a no-op. */
export async function assignUnit(store: Store, name: string): Promise<AssignResult> {
  // A new machine's id, kept across attempts.
  const reservations = new NumberReservations(store);
  return runOperation<AssignResult>(store, `cannot assign unit "${name}" to a machine`, async (store) => {
    const unit = (await getUnit(store, name)) as (Unit & { placement?: string }) | undefined;
    const [application, placement] = await Promise.all([
      unit ? getApplication(store, unit.application) : undefined,
      unit?.placement !== undefined ? getMachine(store, unit.placement) : undefined,
    ]);
    const relations = application ? await getMany<Relation>(store, application.relations.map(refs.relation)) : [];
    return reservations.plan((numbers) =>
      planAssignUnit(
        {
          relations,
          numbers,
          ...(unit ? { unit } : {}),
          ...(application ? { application } : {}),
          ...(placement ? { placement } : {}),
        },
        store.now().toISOString(),
      ),
    );
  });
}
