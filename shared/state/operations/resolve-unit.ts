// `resolved <unit> [--no-retry]`: the user's answer to a hook error. charms-in-action.txt: "If it
// returns a non-zero exit code, the agent enters an error state and awaits resolution". Juju 2.x
// (https://github.com/juju/juju/blob/2.9/state/unit.go SetResolved): the default re-runs the failed
// hook (retry-hooks); --no-retry treats it as done (no-hooks). The agent clears the mode when it
// acts on it.
import type { ResolvedMode } from '../../domain/entities.js';
import { DroverError, notFound } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function resolveUnit(store: Store, name: string, mode: ResolvedMode): Promise<void> {
  await runOperation(store, `cannot set resolved mode for unit "${name}"`, async () => {
    const unit = await getUnit(store, name);
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
  });
}

/** The agent, having acted on the resolved mode, clears it. */
export async function clearResolved(store: Store, name: string): Promise<void> {
  await runOperation(store, `cannot clear resolved mode for unit "${name}"`, async () => {
    const unit = await getUnit(store, name);
    if (!unit?.resolved) return { changes: [], result: undefined };
    return { changes: [{ op: 'update', ref: refs.unit(name), unset: ['resolved'] }], result: undefined };
  });
}
