// goal-state's answer, as Juju's uniter facade builds it (juju/juju
// apiserver/facades/agent/uniter: oneGoalState, goalStateRelations, goalStateUnits): the units
// of the unit's application and, per local endpoint of each non-peer relation, the related
// application (with the relation's status) and its units. A unit's goal status is its workload
// status, `dying` once it is Dying; Dead units are left out, and so are subordinates of other
// principals. Pure: the state layer reads.
import type { Relation, Unit } from './entities.js';

export interface GoalStatus {
  status: string;
  since?: string;
}

export interface GoalStateAnswer {
  units: Record<string, GoalStatus>;
  relations: Record<string, Record<string, GoalStatus>>;
}

/** Juju's common.FormatTime(t, true): UTC, `2006-01-02 15:04:05Z` (ops parses it). */
export const goalTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;

/** goalStateUnits: the units of one application that `unitName` is told about. */
export function unitGoals(units: Unit[], unitName: string): Record<string, GoalStatus> {
  const goals: Record<string, GoalStatus> = {};
  for (const u of units) {
    if (u.life === 'dead') continue;
    // "Ignore subordinates belonging to other units."
    if (u.principal !== undefined && u.principal !== unitName) continue;
    goals[u.name] = { status: u.life === 'dying' ? 'dying' : u.workloadStatus.current, since: goalTime(u.workloadStatus.since) };
  }
  return goals;
}

/**
 * Juju's relation status: `joining` until a unit has entered its scope, then `joined`; `broken`
 * once it is being removed.
 */
export function relationGoal(relation: Relation): GoalStatus {
  const status = relation.life !== 'alive' ? 'broken' : relation.unitCount > 0 ? 'joined' : 'joining';
  return { status, since: goalTime(relation.createdAt) };
}

export function planGoalState(
  unit: Unit,
  ownUnits: Unit[],
  relations: { relation: Relation; application: string; units: Unit[] }[],
): GoalStateAnswer {
  const answer: GoalStateAnswer = { units: unitGoals(ownUnits, unit.name), relations: {} };
  for (const { relation, application, units } of relations) {
    // Peer relations are left out, and so is the unit's own application.
    if (relation.endpoints.length === 1 || application === unit.application) continue;
    const endpoint = relation.endpoints.find((e) => e.application === unit.application);
    if (!endpoint) continue;
    answer.relations[endpoint.name] = {
      ...answer.relations[endpoint.name],
      [application]: relationGoal(relation),
      ...unitGoals(units, unit.name),
    };
  }
  return answer;
}
