// Leadership operations (shared/domain/leadership.ts, plans/leadership.ts): claim, release, and
// the sweep of abandoned leases; what units see of it is read in shared/state/queries/leadership.ts.
// Whether a lease may be taken depends on its expiry alone (a holder that is gone stops renewing
// it), which every write asserts.
import { planClaimLeadership, planReleaseAbandoned, planReleaseLeadership, type ClaimResult } from '../../domain/plans/leadership.js';
import { collections } from '../engine/keys.js';
import { getUnit, listAll } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { getLease } from '../queries/leadership.js';
import { applicationOfUnit } from '../../domain/names.js';

/**
 * Claims the application's lease for `unit` (a lease of `durationMs`), or extends it if `unit`
 * holds it already.
 */
export async function claimLeadership(store: Store, unit: string, durationMs: number): Promise<ClaimResult> {
  return runOperation(store, `cannot claim leadership for unit "${unit}"`, async (store) => {
    const claimant = await getUnit(store, unit);
    const application = claimant?.application ?? applicationOfUnit(unit);
    const lease = await getLease(store, application);
    // The claimant is the caller: its agent speaks now, so it is not silent.
    return planClaimLeadership({ lease, claimant, claimantSilent: false, now: store.now(), durationMs }, application, unit);
  });
}

/** The holder gives its lease up; a unit that does not hold it changes nothing. */
export async function releaseLeadership(store: Store, unit: string, application: string): Promise<{ released: boolean }> {
  return runOperation(store, `cannot release leadership for unit "${unit}"`, async (store) =>
    planReleaseLeadership(await getLease(store, application), application, unit),
  );
}

/**
 * Frees the leases that have run out (their holders did not renew them), so the other units
 * claim without waiting for their next resync: nothing else tells them that a silent leader is
 * gone. Run periodically (the cleanup sweep). Returns the applications whose lease it freed.
 */
export async function releaseAbandonedLeases(store: Store): Promise<string[]> {
  const released: string[] = [];
  for (const ref of await listAll(store, collections.leases(store.model))) {
    if (ref.kind !== 'lease') continue;
    const freed = await runOperation(store, `cannot release the abandoned lease of "${ref.application}"`, async (store) => {
      const lease = await getLease(store, ref.application);
      return planReleaseAbandoned(lease, store.now());
    });
    if (freed.released) released.push(ref.application);
  }
  return released;
}
