// Who observes whom in a relation (charms-in-action.txt, "Relations in depth"): "Each provider unit
// observes every requirer unit; each requirer unit observes every provider unit; each peer unit
// observes every other peer unit." A container-scoped relation has one scope per principal, so
// there only the units deployed alongside one another see each other.
import type { Relation, Unit } from './entities.js';
import { applicationOfUnit } from './names.js';

/** The applications whose units `unit` observes in `relation`. */
export function counterpartApplications(relation: Pick<Relation, 'endpoints'>, application: string): string[] {
  const others = relation.endpoints.filter((e) => e.application !== application).map((e) => e.application);
  // A peer relation has one endpoint: the unit's own application, whose other units it observes.
  return others.length > 0 ? [...new Set(others)] : [application];
}

export function isCounterpart(relation: Pick<Relation, 'endpoints'>, unit: Pick<Unit, 'name' | 'application'>, other: string): boolean {
  return other !== unit.name && counterpartApplications(relation, unit.application).includes(applicationOfUnit(other));
}

/**
 * In a container-scoped relation the only possible counterparts are on the unit's own machine:
 * a subordinate's principal, or a principal's subordinates. Naming them directly keeps the read
 * bounded however many containers the relation spans.
 */
export function containerCandidates(relation: Pick<Relation, 'endpoints'>, unit: Unit): string[] {
  const near = [...(unit.principal !== undefined ? [unit.principal] : []), ...unit.subordinates];
  return near.filter((name) => isCounterpart(relation, unit, name));
}
