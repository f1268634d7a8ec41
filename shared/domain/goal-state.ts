// goal-state's answer (juju/juju worker/uniter/runner/jujuc/goal-state.go, and the uniter facade's
// GoalStates): the units of the unit's application and, per endpoint of each of its relations,
// the related application (the relation's status) and its units. A unit's goal status is its
// workload status, `dying` once it is Dying; Dead units are left out. Pure: the state layer reads.
import type { Relation, Unit } from './entities.js';

export interface GoalStatus {
  status: string;
  since?: string;
}

export interface GoalStateAnswer {
  units: Record<string, GoalStatus>;
  relations: Record<string, Record<string, GoalStatus>>;
}

/** Juju's common.FormatTime(t, true): UTC, `2006-01-02 15:04:05Z`. */
export const goalTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;

export function unitGoals(units: Unit[]): Record<string, GoalStatus> {
  const goals: Record<string, GoalStatus> = {};
  for (const u of units) {
    if (u.life === 'dead') continue;
    goals[u.name] = { status: u.life === 'dying' ? 'dying' : u.workloadStatus.current, since: goalTime(u.workloadStatus.since) };
  }
  return goals;
}

export function planGoalState(
  unit: Unit,
  ownUnits: Unit[],
  relations: { relation: Relation; application: string; units: Unit[] }[],
): GoalStateAnswer {
  const answer: GoalStateAnswer = { units: unitGoals(ownUnits), relations: {} };
  for (const { relation, application, units } of relations) {
    const endpoint = relation.endpoints.find((e) => e.application === unit.application);
    if (!endpoint) continue;
    // A container-scoped relation pairs the units of one machine only.
    const counterparts = relation.scope === 'container' ? units.filter((u) => u.machine === unit.machine) : units;
    const status: GoalStatus = { status: relation.life === 'alive' ? 'joined' : 'dying', since: goalTime(relation.createdAt) };
    answer.relations[endpoint.name] = { ...answer.relations[endpoint.name], [application]: status, ...unitGoals(counterparts) };
  }
  return answer;
}
