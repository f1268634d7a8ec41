// The agent reports the charm its unit runs (shared/domain/plans/unit-charm.ts decides).
import { planSetUnitCharm } from '../../domain/plans/unit-charm.js';
import { getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function setUnitCharm(store: Store, name: string, charmUrl: string): Promise<void> {
  await runOperation(store, `cannot set charm URL of unit "${name}"`, async (store) =>
    planSetUnitCharm(await getUnit(store, name), name, charmUrl),
  );
}
