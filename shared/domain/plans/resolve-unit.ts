// `resolved <unit> [--no-retry]`: the user's answer to a hook error. Juju's "Charms in action"
// (docs/lifecycle-rules.md, "Sources"): "If it returns a non-zero exit code, the agent enters an
// error state and awaits resolution". Juju 2.x
// (https://github.com/juju/juju/blob/2.9/state/unit.go SetResolved): the default re-runs the failed
// hook (retry-hooks); --no-retry treats it as done (no-hooks). The agent clears the mode when it
// acts on it.
import type { ResolvedMode, Unit } from '../entities.js';
import { DroverError, notFound } from '../errors.js';
import { done, refs, type Plan } from '../plan.js';

export function planResolveUnit(unit: Unit | undefined, name: string, mode: ResolvedMode): Plan<void> {
  if (!unit) throw notFound(`unit "${name}" not found`);
  if (unit.resolved) throw new DroverError('already-exists', `cannot set resolved mode for unit "${name}": already resolved`);
  if (unit.agentStatus.current !== 'error') throw new DroverError('invalid-argument', `unit "${name}" is not in an error state`);
  return {
    changes: [
      {
        op: 'update',
        ref: refs.unit(name),
        set: { resolved: mode },
        expect: { equals: { 'agentStatus.current': 'error' }, absent: ['resolved'] },
      },
    ],
    result: undefined,
  };
}

/** The agent, having acted on the resolved mode, clears it. */
export function planClearResolved(unit: Unit | undefined, name: string): Plan<void> {
  if (!unit?.resolved) return done(undefined);
  return { changes: [{ op: 'update', ref: refs.unit(name), unset: ['resolved'] }], result: undefined };
}
