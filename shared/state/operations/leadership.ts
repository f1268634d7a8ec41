// Leadership reads and operations (shared/domain/leadership.ts, plans/leadership.ts): claim,
// release, and what each application's units see of it. Whether a lease may be taken depends on
// its expiry alone (a holder that is gone stops renewing it), which every write asserts.
import { isClaimable, type LeaderSettings, type Lease, type LeadershipView } from '../../domain/leadership.js';
import { refs } from '../../domain/plan.js';
import { planClaimLeadership, planReleaseAbandoned, planReleaseLeadership, type ClaimResult } from '../../domain/plans/leadership.js';
import { collections } from '../engine/keys.js';
import { getEach, getItem, getUnit, listAll } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export const getLease = (store: Store, application: string) => getItem<Lease>(store, refs.lease(application));
export const getLeaderSettings = (store: Store, application: string) => getItem<LeaderSettings>(store, refs.leaderSettings(application));

/**
 * Claims the application's lease for `unit` (a lease of `durationMs`), or extends it if `unit`
 * holds it already.
 */
export async function claimLeadership(store: Store, unit: string, durationMs: number): Promise<ClaimResult> {
  return runOperation(store, `cannot claim leadership for unit "${unit}"`, async () => {
    const claimant = await getUnit(store, unit);
    const application = claimant?.application ?? unit.slice(0, unit.lastIndexOf('/'));
    const lease = await getLease(store, application);
    // The claimant is the caller: its agent speaks now, so it is not silent.
    return planClaimLeadership({ lease, claimant, claimantSilent: false, now: store.now(), durationMs }, application, unit);
  });
}

/** The holder gives its lease up; a unit that does not hold it changes nothing. */
export async function releaseLeadership(store: Store, unit: string, application: string): Promise<{ released: boolean }> {
  return runOperation(store, `cannot release leadership for unit "${unit}"`, async () =>
    planReleaseLeadership(await getLease(store, application), application, unit),
  );
}

/** What the units of these applications see of their leadership (the agent's view). */
export async function readLeadership(store: Store, applications: string[]): Promise<LeadershipView[]> {
  if (applications.length === 0) return [];
  const leases = await getEach<Lease>(store, applications.map(refs.lease));
  const settings = await getEach<LeaderSettings>(store, applications.map(refs.leaderSettings));
  const now = store.now();
  return applications.map((application, i) => {
    const lease = leases[i];
    return {
      application,
      ...(lease ? { holder: lease.holder, expiresAt: lease.expiresAt } : {}),
      claimable: isClaimable(lease, now),
      settingsVersion: settings[i]?.version ?? 0,
    };
  });
}

/** The leader of each application that has one (for status): the holder, whether or not its lease has expired. */
export async function readLeaders(store: Store, applications: string[]): Promise<Record<string, string>> {
  const leases = await getEach<Lease>(store, applications.map(refs.lease));
  return Object.fromEntries(leases.filter((l): l is Lease => l !== undefined).map((l) => [l.application, l.holder]));
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
    const freed = await runOperation(store, `cannot release the abandoned lease of "${ref.application}"`, async () => {
      const lease = await getLease(store, ref.application);
      return planReleaseAbandoned(lease, store.now());
    });
    if (freed.released) released.push(ref.application);
  }
  return released;
}
