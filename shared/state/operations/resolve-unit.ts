// `resolved <unit> [--no-retry]`, and the agent clearing the mode once it acted on it
// (shared/domain/plans/resolve-unit.ts decides).
import type { ResolvedMode } from '../../domain/entities.js';
import { planClearResolved, planResolveUnit } from '../../domain/plans/resolve-unit.js';
import { getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function resolveUnit(store: Store, name: string, mode: ResolvedMode): Promise<void> {
  await runOperation(store, `cannot set resolved mode for unit "${name}"`, async (store) =>
    planResolveUnit(await getUnit(store, name), name, mode),
  );
}

export async function clearResolved(store: Store, name: string): Promise<void> {
  await runOperation(store, `cannot clear resolved mode for unit "${name}"`, async (store) =>
    planClearResolved(await getUnit(store, name), name),
  );
}
