// Which relation scopes a unit belongs in, and whether its principal still holds a subordinate:
// the relation rules of the unit agent's decision (agent/uniter/decide.ts).
import type { Relation, Unit } from '#shared/domain/entities.js';
import { applicationOfUnit } from '#shared/domain/names.js';

/** The endpoint of the unit's application in the relation. */
export const endpointOf = (relation: Relation, application: string) => relation.endpoints.find((e) => e.application === application);

/**
 * Whether the unit belongs in the relation's scope. A container-scoped relation pairs the units
 * of one container: a subordinate joins only the one with its own principal's application.
 */
export function mayJoin(unit: Unit, relation: Relation): boolean {
  if (!endpointOf(relation, unit.application)) return false;
  if (relation.scope !== 'container' || unit.principal === undefined) return true;
  const principalApp = applicationOfUnit(unit.principal);
  return relation.endpoints.some((e) => e.application === principalApp);
}

/** A subordinate lives while its principal is Alive and an Alive container relation binds them (docs/lifecycle-rules.md). */
export function principalHoldsSubordinate(unit: Unit, principal: Unit | undefined, relations: Relation[]): boolean {
  if (!principal || principal.life !== 'alive') return false;
  return relations.some(
    (r) =>
      r.scope === 'container' &&
      r.life === 'alive' &&
      r.endpoints.some((e) => e.application === unit.application) &&
      r.endpoints.some((e) => e.application === principal.application),
  );
}
