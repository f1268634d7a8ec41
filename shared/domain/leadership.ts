// Application leadership (Juju's leases): one unit of an application at a time is its leader,
// held as a lease item written only by conditional writes (shared/domain/plans/leadership.ts).
//
// Juju's promise, which charms (and ops) rely on: when `is-leader` says True, the unit stays
// leader for at least 30 s more. Juju holds a lease of 1 min and its leader's tracker extends it
// every 30 s (https://github.com/juju/juju/blob/3.6/worker/leadership/tracker.go). drover keeps
// the promise with no clock trust beyond a margin: the holder counts from its own clock at the
// moment it sent the claim (before the controller wrote the expiry), minus a margin for clocks
// that run at slightly different rates.
//
// The lease is longer than Juju's, 5.5 min, and renewed every ~4.7 min (45 s before the holder's
// own view of it runs short, so `is-leader` in between is answered from memory): a renewal every
// 30 s would cost 120 requests an hour per application (docs/agents.md, "Cost"), while one every
// ~4.7 min comes sooner than the machine agent's 5-min heartbeat, which any request resets, so
// for the leader's machine it replaces the heartbeat (about +1 request an hour).
//
// As in Juju, a lease that has run out is free, whatever became of its holder: a holder that
// did not renew it is lost, dead or cut off. The sweep frees such leases, so the other units are
// told and claim at once: failover comes at most a lease plus a sweep interval after the leader
// was last heard of. A lease that has not run out is never handed over (two leaders at once).
// A Dying leader releases its lease on its way out, so its successor does not wait at all.
import type { Unit } from './entities.js';
import { refs, type EntityRef } from './plan.js';

/** The lease's length unless the controller is set otherwise (ApiDeps.leadershipLeaseSeconds). */
export const DEFAULT_LEASE_SECONDS = 330;
/** is-leader answers True from memory only while at least this much of the lease remains. */
export const LEADERSHIP_GUARANTEE_MS = 30_000;
/** How much the holder's clock may drift from the controller's over one (default) lease. */
export const LEASE_MARGIN_MS = 5_000;
/** The holder renews this long before its own view of the lease runs out: more than the guarantee. */
export const LEASE_RENEW_BEFORE_MS = 45_000;

export interface Lease {
  application: string;
  /** The leader unit. */
  holder: string;
  /** The controller's clock (ISO) when the lease runs out, unless extended. */
  expiresAt: string;
}

export interface LeaderSettings {
  application: string;
  settings: Record<string, string>;
  /** Bumped on every change, so followers know to run leader-settings-changed. */
  version: number;
}

/** What a unit agent sees of its application's leadership, in its view. */
export interface LeadershipView {
  application: string;
  holder?: string;
  expiresAt?: string;
  /** Another unit may claim the lease now (free, or run out). */
  claimable: boolean;
  /** The version of the leader settings (0: none written yet). */
  settingsVersion: number;
}

/** Juju: only an Alive unit whose agent is present may lead. */
export function mayLead(unit: Unit | undefined, agentSilent: boolean): boolean {
  return unit !== undefined && unit.life === 'alive' && !agentSilent;
}

export const isExpired = (lease: Lease, now: Date) => Date.parse(lease.expiresAt) <= now.getTime();

/** Whether a unit other than the holder may take the lease now: none, or it has run out (its holder did not renew it). */
export function isClaimable(lease: Lease | undefined, now: Date): boolean {
  return lease === undefined || isExpired(lease, now);
}

/**
 * Drift between two clocks grows with the time measured, so a lease shorter than the default
 * (a test's few seconds) needs a smaller margin: a tenth of it, at most LEASE_MARGIN_MS.
 */
const marginMs = (durationMs: number) => Math.min(LEASE_MARGIN_MS, durationMs / 10);

/**
 * Until when (the agent's own clock) a holder may act as leader, for a claim of a lease of
 * `durationMs` it sent at `sentAt`: the controller wrote the expiry after that, so counting from
 * `sentAt` errs early.
 */
export const leaderUntil = (sentAt: number, durationMs: number) => sentAt + durationMs - marginMs(durationMs);

/**
 * When (the agent's own clock) the holder renews a lease it holds until `validUntil`:
 * LEASE_RENEW_BEFORE_MS earlier, or halfway through a lease too short for that (tests).
 */
export const renewAt = (validUntil: number, durationMs: number) => validUntil - Math.min(LEASE_RENEW_BEFORE_MS, durationMs / 2);

/** True if the lease, known valid until `validUntil`, still keeps Juju's promise at `now`. */
export const guaranteesLeadership = (validUntil: number | undefined, now: number) =>
  validUntil !== undefined && validUntil - now >= LEADERSHIP_GUARANTEE_MS;

/** What of an application's leadership must go when the application goes (its relation bags go with the relations). */
export const applicationDataRefs = (application: string): EntityRef[] => [refs.lease(application), refs.leaderSettings(application)];
