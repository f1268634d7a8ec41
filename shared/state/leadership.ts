// Leadership reads and operations (shared/domain/leadership.ts, plans/leadership.ts): claim,
// release, and what each application's units see of it. Whether a holder may still lead depends
// on its life and its agent's presence, read here; presence is not asserted by the transaction
// (it is no lifecycle fact), which is safe: a holder is lost only after 12 min of silence, long
// after its own view of the lease (at most a minute) ran out.
import type { Unit } from '../domain/entities.js';
import { isAgentSilent } from '../domain/presence.js';
import { isClaimable, mayLead, type LeaderSettings, type Lease, type LeadershipView } from '../domain/leadership.js';
import { refs } from '../domain/plan.js';
import { planClaimLeadership, planReleaseAbandoned, planReleaseLeadership, type ClaimResult } from '../domain/plans/leadership.js';
import { collections } from './keys.js';
import { readPresence } from './presence.js';
import { getEach, getItem, getUnit, listAll } from './reads.js';
import { runOperation } from './run-operation.js';
import type { Store } from './store.js';

export const getLease = (store: Store, application: string) => getItem<Lease>(store, refs.lease(application));
export const getLeaderSettings = (store: Store, application: string) => getItem<LeaderSettings>(store, refs.leaderSettings(application));

/** Whether each unit may lead: Alive, and its machine's agent not silent. Absent units may not. */
async function eligibility(store: Store, units: string[], lostAfterMs: number): Promise<Map<string, boolean>> {
  const found = await getEach<Unit>(store, units.map(refs.unit));
  const machines = [...new Set(found.map((u) => u?.machine).filter((m): m is string => m !== undefined))];
  const lastSeen = machines.length > 0 ? await readPresence(store, machines) : {};
  const now = store.now();
  return new Map(
    units.map((name, i) => {
      const unit = found[i];
      const silent = unit?.machine !== undefined && isAgentSilent({ lastSeen, lostAfterMs }, unit.machine, now);
      return [name, mayLead(unit, silent)];
    }),
  );
}

/** Claims the application's lease for `unit`, or extends it if `unit` holds it already. */
export async function claimLeadership(store: Store, unit: string, lostAfterMs: number): Promise<ClaimResult> {
  return runOperation(store, `cannot claim leadership for unit "${unit}"`, async () => {
    const claimant = await getUnit(store, unit);
    const application = claimant?.application ?? unit.slice(0, unit.lastIndexOf('/'));
    const lease = await getLease(store, application);
    const holderEligible =
      lease && lease.holder !== unit ? ((await eligibility(store, [lease.holder], lostAfterMs)).get(lease.holder) ?? false) : true;
    // The claimant is the caller: its agent speaks now, so it is not silent.
    return planClaimLeadership({ lease, claimant, claimantSilent: false, holderEligible, now: store.now() }, application, unit);
  });
}

/** The holder gives its lease up; a unit that does not hold it changes nothing. */
export async function releaseLeadership(store: Store, unit: string, application: string): Promise<{ released: boolean }> {
  return runOperation(store, `cannot release leadership for unit "${unit}"`, async () =>
    planReleaseLeadership(await getLease(store, application), application, unit),
  );
}

/** What the units of these applications see of their leadership (the agent's view). */
export async function readLeadership(store: Store, applications: string[], lostAfterMs: number): Promise<LeadershipView[]> {
  if (applications.length === 0) return [];
  const leases = await getEach<Lease>(store, applications.map(refs.lease));
  const settings = await getEach<LeaderSettings>(store, applications.map(refs.leaderSettings));
  const holders = [...new Set(leases.map((l) => l?.holder).filter((h): h is string => h !== undefined))];
  const eligible = holders.length > 0 ? await eligibility(store, holders, lostAfterMs) : new Map<string, boolean>();
  const now = store.now();
  return applications.map((application, i) => {
    const lease = leases[i];
    return {
      application,
      ...(lease ? { holder: lease.holder, expiresAt: lease.expiresAt } : {}),
      claimable: isClaimable(lease, lease ? (eligible.get(lease.holder) ?? false) : true, now),
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
 * Frees the leases of leaders that can no longer extend them (agent lost, Dying, removed) once
 * they have run out, so the other units claim without waiting for their next resync: nothing
 * else tells them that a silent agent is gone. Run periodically (the watchdog). Returns the
 * applications whose lease it freed.
 */
export async function releaseAbandonedLeases(store: Store, lostAfterMs: number): Promise<string[]> {
  const released: string[] = [];
  for (const ref of await listAll(store, collections.leases(store.model))) {
    if (ref.kind !== 'lease') continue;
    const freed = await runOperation(store, `cannot release the abandoned lease of "${ref.application}"`, async () => {
      const lease = await getLease(store, ref.application);
      const holderEligible = lease ? ((await eligibility(store, [lease.holder], lostAfterMs)).get(lease.holder) ?? false) : true;
      return planReleaseAbandoned(lease, holderEligible, store.now());
    });
    if (freed.released) released.push(ref.application);
  }
  return released;
}
