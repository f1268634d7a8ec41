import type { Relation, Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { planAssignUnit, type AssignResult } from '../../domain/plans/assign-unit.js';
import { sequenceNames } from '../../domain/sequences.js';
import { getApplication, getMachine, getMany, getSequence, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** Gives a waiting unit its machine, if its required relations are now satisfied; otherwise a no-op. */
export async function assignUnit(store: Store, name: string): Promise<AssignResult> {
  return runOperation<AssignResult>(store, `cannot assign unit "${name}" to a machine`, async (store) => {
    const unit = (await getUnit(store, name)) as (Unit & { placement?: string }) | undefined;
    const [application, machineSequence, placement] = await Promise.all([
      unit ? getApplication(store, unit.application) : undefined,
      getSequence(store, sequenceNames.machine),
      unit?.placement !== undefined ? getMachine(store, unit.placement) : undefined,
    ]);
    const relations = application ? await getMany<Relation>(store, application.relations.map(refs.relation)) : [];
    return planAssignUnit(
      {
        relations,
        machineSequence,
        ...(unit ? { unit } : {}),
        ...(application ? { application } : {}),
        ...(placement ? { placement } : {}),
      },
      store.now().toISOString(),
    );
  });
}
