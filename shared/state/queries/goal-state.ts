// Reads what goal-state shows for a unit: its application's units and its relations' counterparts.
import type { Application, Relation, Unit } from '../../domain/entities.js';
import { planGoalState, type GoalStateAnswer } from '../../domain/goal-state.js';
import { refs } from '../../domain/plan.js';
import { counterpartApplications } from '../../domain/relation-counterparts.js';
import { getApplication, getMany } from '../engine/reads.js';
import { listAllUnits } from '../engine/unit-listing.js';
import type { Store } from '../engine/store.js';

/** The units of an application (read for where its units are listed; none once it is gone). */
async function unitsOf(store: Store, name: string, known?: Application): Promise<Unit[]> {
  const application = known ?? (await getApplication(store, name));
  return application ? getMany<Unit>(store, await listAllUnits(store, application)) : [];
}

export async function readGoalState(store: Store, unit: Unit): Promise<GoalStateAnswer> {
  const application = await getApplication(store, unit.application);
  const relations = application ? await getMany<Relation>(store, application.relations.map(refs.relation)) : [];
  const related = [];
  for (const relation of relations) {
    for (const other of counterpartApplications(relation, unit.application)) {
      // A peer relation's counterpart is the unit's own application, which goal-state leaves out.
      if (other === unit.application) continue;
      related.push({ relation, application: other, units: await unitsOf(store, other) });
    }
  }
  return planGoalState(unit, await unitsOf(store, unit.application, application), related);
}
