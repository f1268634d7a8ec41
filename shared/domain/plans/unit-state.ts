// A unit's charm state (state-get/state-set/state-delete, juju/juju
// worker/uniter/runner/jujuc/state-*.go) and its workload version (application-version-set):
// both written by the unit's own agent when a hook succeeds, as part of the hook's commit.
import type { Unit } from '../entities.js';
import { invalidArgument, notFound } from '../errors.js';
import { sameEntries } from '../own-keys.js';
import { done, refs, type Change, type Plan } from '../plan.js';

export interface UnitCharmState {
  unit: string;
  state: Record<string, string>;
  /** Bumped on every write: a write asserts the version it read. */
  version: number;
}

/**
 * What one DynamoDB item can hold with room to spare (items are at most 400 KB). Juju's default
 * per-unit quota is larger (max-charm-state-size, 2 MiB); a charm that needs more learns so.
 */
export const MAX_UNIT_STATE_BYTES = 350_000;

/** Set (a string) or delete (null) each key. */
export type StateChanges = Record<string, string | null>;

export function applyStateChanges(state: Record<string, string>, changes: StateChanges): Record<string, string> {
  const next = { ...state };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

const same = (a: Record<string, string>, b: Record<string, string>) => sameEntries(a, b);

export function planWriteUnitState(
  unit: Unit | undefined,
  current: UnitCharmState | undefined,
  intent: { unit: string; changes: StateChanges },
): Plan<Record<string, string>> {
  if (!unit || unit.life === 'dead') throw notFound(`unit "${intent.unit}" not found`);
  const before = current?.state ?? {};
  const state = applyStateChanges(before, intent.changes);
  if (same(state, before)) return done(before);
  const size = Object.entries(state).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > MAX_UNIT_STATE_BYTES) throw invalidArgument(`max allowed size (${MAX_UNIT_STATE_BYTES}) of the unit's charm state exceeded`);
  const changes: Change[] = [
    // The unit must still be there: its removal deletes its state, and a write racing it must not
    // leave a stray item behind.
    { op: 'check', ref: refs.unit(intent.unit), expect: { life: ['alive', 'dying'] } },
    current
      ? {
          op: 'update',
          ref: refs.unitState(intent.unit),
          set: { state, version: current.version + 1 },
          expect: { equals: { version: current.version } },
        }
      : { op: 'create', ref: refs.unitState(intent.unit), value: { unit: intent.unit, state, version: 1 } },
  ];
  return { changes, result: state };
}

/** application-version-set: the unit's workload version, and when it was set (status shows the latest of the application's). */
export function planSetWorkloadVersion(unit: Unit | undefined, intent: { unit: string; version: string; now: string }): Plan<void> {
  if (!unit || unit.life === 'dead') throw notFound(`unit "${intent.unit}" not found`);
  if (unit.workloadVersion === intent.version) return done(undefined);
  return {
    changes: [
      {
        op: 'update',
        ref: refs.unit(intent.unit),
        set: { workloadVersion: intent.version, workloadVersionSince: intent.now },
        expect: { life: ['alive', 'dying'] },
      },
    ],
    result: undefined,
  };
}
