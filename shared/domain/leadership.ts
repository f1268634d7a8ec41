// Application leadership (Juju's leases): one unit of an application at a time is its leader,
// held as a lease item written only by conditional writes (shared/domain/plans/leadership.ts).
//
// Juju's promise, which charms (and ops) rely on: when `is-leader` says True, the unit stays
// leader for at least 30 s more. Juju holds a lease of 1 min and extends it when less than 30 s
// remain (https://github.com/juju/juju/blob/3.6/worker/leadership/tracker.go). drover does the
// same, with no clock trust beyond a margin: the holder counts from its own clock at the moment
// it sent the claim (before the controller wrote the expiry), minus LEASE_MARGIN_MS for clocks
// that run at slightly different rates.
//
// Unlike Juju's tracker, an idle holder does not extend its lease every 30 s: that would cost
// 120 requests an hour per application (docs/agents.md, "Cost"). It extends it only when a hook
// asks (is-leader, leader-set...). An expired lease therefore stays its holder's as long as the
// holder is eligible; another unit takes it only once it has expired AND its holder is Dying,
// removed, or its agent lost (presence) — or at once when the holder released it.
import type { Unit } from './entities.js';
import { refs, type EntityRef } from './plan.js';

export const LEASE_DURATION_MS = 60_000;
/** is-leader answers True from memory only while at least this much of the lease remains. */
export const LEADERSHIP_GUARANTEE_MS = 30_000;
/** How much the holder's clock may drift from the controller's over one lease. */
export const LEASE_MARGIN_MS = 5_000;

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
  /** Another unit may claim the lease now (free, or expired with an ineligible holder). */
  claimable: boolean;
  /** The version of the leader settings (0: none written yet). */
  settingsVersion: number;
}

/** Juju: only an Alive unit whose agent is present may lead. */
export function mayLead(unit: Unit | undefined, agentSilent: boolean): boolean {
  return unit !== undefined && unit.life === 'alive' && !agentSilent;
}

export const isExpired = (lease: Lease, now: Date) => Date.parse(lease.expiresAt) <= now.getTime();

/** Whether a unit other than the holder may take the lease now. */
export function isClaimable(lease: Lease | undefined, holderEligible: boolean, now: Date): boolean {
  return lease === undefined || (!holderEligible && isExpired(lease, now));
}

/**
 * Until when (the agent's own clock) a holder may act as leader, for a claim it sent at
 * `sentAt`: the controller wrote the expiry after that, so counting from `sentAt` errs early.
 */
export const leaderUntil = (sentAt: number) => sentAt + LEASE_DURATION_MS - LEASE_MARGIN_MS;

/** True if the lease, known valid until `validUntil`, still keeps Juju's promise at `now`. */
export const guaranteesLeadership = (validUntil: number | undefined, now: number) =>
  validUntil !== undefined && validUntil - now >= LEADERSHIP_GUARANTEE_MS;

/** What of an application's leadership must go when the application goes (its relation bags go with the relations). */
export const applicationDataRefs = (application: string): EntityRef[] => [refs.lease(application), refs.leaderSettings(application)];
