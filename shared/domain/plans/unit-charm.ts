// The charm a unit's agent has deployed, as the agent reports it after deploying or upgrading:
// status shows the unit `upgrading-from` its charm while it differs from the application's.
import type { Unit } from '../entities.js';
import { notFound } from '../errors.js';
import { done, refs, type Plan } from '../plan.js';

export function planSetUnitCharm(unit: Unit | undefined, name: string, charmUrl: string): Plan<void> {
  if (!unit) throw notFound(`unit "${name}" not found`);
  if (unit.charmUrl === charmUrl) return done(undefined);
  // Like status, a report about the unit: it needs the unit to exist, nothing more.
  return { changes: [{ op: 'update', ref: refs.unit(name), set: { charmUrl } }], result: undefined };
}
