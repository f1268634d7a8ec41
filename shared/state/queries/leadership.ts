// Leadership as the units and status see it (shared/domain/leadership.ts): each application's lease
// and leader settings, read; the claims and releases are in shared/state/operations/leadership.ts.
import { isClaimable, type LeaderSettings, type Lease, type LeadershipView } from '../../domain/leadership.js';
import { refs, type EntityRef } from '../../domain/plan.js';
import { getEach, getItem } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export const getLease = (store: Store, application: string) => getItem<Lease>(store, refs.lease(application));

export const getLeaderSettings = (store: Store, application: string) => getItem<LeaderSettings>(store, refs.leaderSettings(application));

/** The items leadershipFrom() reads for these applications: their leases, then their leader settings. */
export const leadershipRefs = (applications: string[]): EntityRef[] => [
  ...applications.map(refs.lease),
  ...applications.map(refs.leaderSettings),
];

/** What the units of these applications see of their leadership, from the items of leadershipRefs() (undefined: absent). */
export function leadershipFrom(applications: string[], items: unknown[], now: Date): LeadershipView[] {
  return applications.map((application, i) => {
    const lease = items[i] as Lease | undefined;
    const settings = items[applications.length + i] as LeaderSettings | undefined;
    return {
      application,
      ...(lease ? { holder: lease.holder, expiresAt: lease.expiresAt } : {}),
      claimable: isClaimable(lease, now),
      settingsVersion: settings?.version ?? 0,
    };
  });
}

/** What the units of these applications see of their leadership (the agent's view), in one read. */
export async function readLeadership(store: Store, applications: string[]): Promise<LeadershipView[]> {
  if (applications.length === 0) return [];
  return leadershipFrom(applications, await getEach<unknown>(store, leadershipRefs(applications)), store.now());
}

/** The leader of each application that has one (for status): the holder, whether or not its lease has expired. */
export async function readLeaders(store: Store, applications: string[]): Promise<Record<string, string>> {
  const leases = await getEach<Lease>(store, applications.map(refs.lease));
  return Object.fromEntries(leases.filter((l): l is Lease => l !== undefined).map((l) => [l.application, l.holder]));
}
