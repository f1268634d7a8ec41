// The charm a unit's agent has deployed, as the agent reports it after deploying or upgrading:
// status shows the unit `upgrading-from` its charm while it differs from the application's.
import { notFound } from '../../domain/errors.js';
import { done, refs } from '../../domain/plan.js';
import { getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function setUnitCharm(store: Store, name: string, charmUrl: string): Promise<void> {
  await runOperation(store, `cannot set charm URL of unit "${name}"`, async () => {
    const unit = await getUnit(store, name);
    if (!unit) throw notFound(`unit "${name}" not found`);
    if (unit.charmUrl === charmUrl) return done(undefined);
    // Like status, a report about the unit: it needs the unit to exist, nothing more.
    return { changes: [{ op: 'update', ref: refs.unit(name), set: { charmUrl } }], result: undefined };
  });
}
