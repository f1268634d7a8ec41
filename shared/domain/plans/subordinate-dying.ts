// A subordinate's agent setting its own unit Dying when nothing keeps it Alive any more.
//
// lifecycles.txt: "A subordinate must also become Dying when either: its principal becomes
// Dying ...; or the last Alive relation between its service and its principal's service is no
// longer Alive." The unit agent is responsible: "if a subordinate, detecting that no relations
// with its principal are Alive, and setting its own Dying state".
import type { Application, Relation, Unit } from '../entities.js';
import { invalidArgument } from '../errors.js';
import { refs, type Change, type Plan } from '../plan.js';

export type SubordinateDyingResult = 'dying' | 'already-dying' | 'still-related' | 'gone';

export interface SubordinateDyingSnapshot {
  unit?: Unit;
  principal?: Unit;
  /** The subordinate's application. */
  application?: Application;
  /** The relations named in `application.relations` that still exist. */
  relations: Relation[];
}

/** True when the relation is one a subordinate of `subordinateApp` lives by, under a principal of `principalApp`. */
export const bindsToPrincipal = (relation: Relation, subordinateApp: string, principalApp: string) =>
  relation.scope === 'container' &&
  relation.endpoints.some((ep) => ep.application === subordinateApp) &&
  relation.endpoints.some((ep) => ep.application === principalApp);

export function planEnsureSubordinateDying(snapshot: SubordinateDyingSnapshot, intent: { name: string }): Plan<SubordinateDyingResult> {
  const { unit, principal, application } = snapshot;
  // Already removed: it went through Dying and Dead on its way out.
  if (!unit) return { changes: [], result: 'gone' };
  if (unit.principal === undefined) throw invalidArgument(`unit "${intent.name}" is not a subordinate`);
  if (unit.life !== 'alive') return { changes: [], result: 'already-dying' };

  const setDying: Change = { op: 'update', ref: refs.unit(unit.name), set: { life: 'dying' }, expect: { life: 'alive' } };

  // "its principal becomes Dying". (A principal cannot be removed while a subordinate exists,
  // so an absent principal is an inconsistency; the subordinate has nothing to live for then.)
  if (!principal || principal.life !== 'alive') {
    const changes: Change[] = [setDying];
    if (principal) changes.push({ op: 'check', ref: refs.unit(principal.name), expect: { life: principal.life } });
    return { changes, result: 'dying' };
  }

  const binding = application ? snapshot.relations.filter((r) => bindsToPrincipal(r, application.name, principal.application)) : [];
  if (binding.some((r) => r.life === 'alive')) return { changes: [], result: 'still-related' };

  // "the last Alive relation ... is no longer Alive": assert that every binding relation read is
  // still not Alive (none can go back, but asserting them keeps the decision tied to what was
  // read), and that the application's relation set is the one read, so a relation added between
  // the two applications meanwhile makes this re-plan instead.
  const changes: Change[] = [setDying];
  if (application) {
    changes.push({
      op: 'check',
      ref: refs.application(application.name),
      expect: { setSize: { relations: application.relations.length } },
    });
  }
  for (const r of binding) changes.push({ op: 'check', ref: refs.relation(r.key), expect: { life: r.life } });
  return { changes, result: 'dying' };
}
