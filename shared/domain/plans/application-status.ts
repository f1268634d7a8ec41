// Application status, the leader's to set and read (status-set/status-get --application;
// https://github.com/juju/juju/blob/3.6/worker/uniter/runner/context/context.go:
// SetApplicationStatus refuses a non-leader with ErrIsNotLeader, "this unit is not the leader").
import type { StatusInfo, Unit } from '../entities.js';
import { DroverError, notFound } from '../errors.js';
import type { Lease } from '../leadership.js';
import { refs, type Plan } from '../plan.js';

export const NOT_THE_LEADER = 'this unit is not the leader';

/** The unit, if it exists and holds its application's lease; Juju's refusal otherwise. */
export function leaderUnit(unit: Unit | undefined, lease: Lease | undefined, unitName: string): Unit {
  if (!unit) throw notFound(`unit "${unitName}" not found`);
  if (lease?.holder !== unitName) throw new DroverError('unauthorized', NOT_THE_LEADER);
  return unit;
}

export function planSetApplicationStatus(
  unit: Unit | undefined,
  lease: Lease | undefined,
  unitName: string,
  status: Omit<StatusInfo, 'since'>,
  since: string,
): Plan<void> {
  const leader = leaderUnit(unit, lease, unitName);
  return {
    changes: [
      { op: 'update', ref: refs.application(leader.application), set: { status: { ...status, since } } },
      // Only while it still leads.
      { op: 'check', ref: refs.lease(leader.application), expect: { equals: { holder: unitName } } },
    ],
    result: undefined,
  };
}
