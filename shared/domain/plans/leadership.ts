// The plans of leadership (shared/domain/leadership.ts): claim (take, or extend one's own) and
// release. Every write asserts the holder (and the expiry) it read, so two claimants racing for
// a free or expired lease cannot both win: one transaction is cancelled and re-plans, and then
// finds the lease held.
import type { Unit } from '../entities.js';
import { DroverError } from '../errors.js';
import { isClaimable, mayLead, type LeaderSettings, type Lease } from '../leadership.js';
import { done, refs, type Plan } from '../plan.js';
import { applySettingsChanges, sameSettings } from './relation-settings.js';
import { checkSettingsSize } from '../item-size.js';

export interface ClaimResult {
  leader: boolean;
  /** The holder after the claim (absent: nobody holds it). */
  holder?: string;
  expiresAt?: string;
  /**
   * When granted: the lease's length. The holder counts it from before its request, on its own
   * clock (shared/domain/leadership.ts leaderUntil), so the controller alone sets the length.
   */
  durationMs?: number;
}

export interface ClaimFacts {
  lease: Lease | undefined;
  claimant: Unit | undefined;
  /** The claimant's machine agent is silent (only possible for a stale request). */
  claimantSilent: boolean;
  now: Date;
  /** The lease's length, the controller's setting. */
  durationMs: number;
}

const answer = (lease: Lease | undefined, unit: string): ClaimResult =>
  lease ? { leader: lease.holder === unit, holder: lease.holder, expiresAt: lease.expiresAt } : { leader: false };

export function planClaimLeadership(facts: ClaimFacts, application: string, unit: string): Plan<ClaimResult> {
  const { lease, claimant, now } = facts;
  // "A unit that is Dying, removed, or whose agent is lost must not hold or take the lease."
  if (!claimant || claimant.application !== application || !mayLead(claimant, facts.claimantSilent)) {
    return done({ ...answer(lease, unit), leader: false });
  }
  const expiresAt = new Date(now.getTime() + facts.durationMs).toISOString();
  const granted: ClaimResult = { leader: true, holder: unit, expiresAt, durationMs: facts.durationMs };
  // The claimant must still be Alive when the lease is written.
  const alive = { op: 'check' as const, ref: refs.unit(unit), expect: { life: 'alive' as const } };
  if (!lease) {
    return {
      changes: [{ op: 'create', ref: refs.lease(application), value: { application, holder: unit, expiresAt } }, alive],
      result: granted,
    };
  }
  // Another unit's lease that has not run out is never taken: two leaders at once.
  if (lease.holder !== unit && !isClaimable(lease, now)) return done(answer(lease, unit));
  return {
    changes: [
      {
        op: 'update',
        ref: refs.lease(application),
        set: { holder: unit, expiresAt },
        expect: { equals: { holder: lease.holder, expiresAt: lease.expiresAt } },
      },
      alive,
    ],
    result: granted,
  };
}

/** The holder gives the lease up (a Dying leader on its way out): others may claim at once. */
export function planReleaseLeadership(lease: Lease | undefined, application: string, unit: string): Plan<{ released: boolean }> {
  if (!lease || lease.holder !== unit) return done({ released: false });
  return { changes: [{ op: 'remove', ref: refs.lease(application), expect: { equals: { holder: unit } } }], result: { released: true } };
}

/**
 * leader-set, committed with the hook: only while the unit holds the lease. Juju's words for a
 * non-leader: "cannot write leadership settings: cannot write settings: not the leader" (the
 * tool adds the first part).
 */
export function planWriteLeaderSettings(
  facts: { lease: Lease | undefined; current: LeaderSettings | undefined },
  application: string,
  unit: string,
  changes: Record<string, string>,
): Plan<{ version: number }> {
  if (!facts.lease || facts.lease.holder !== unit) throw new DroverError('unauthorized', 'cannot write settings: not the leader');
  const holds = { op: 'check' as const, ref: refs.lease(application), expect: { equals: { holder: unit } } };
  const current = facts.current;
  const settings = applySettingsChanges(current?.settings ?? {}, changes);
  if (current && sameSettings(settings, current.settings)) return { changes: [holds], result: { version: current.version } };
  checkSettingsSize(settings, `the leader settings of application "${application}"`);
  if (!current) {
    if (Object.keys(settings).length === 0) return { changes: [holds], result: { version: 0 } };
    return {
      changes: [{ op: 'create', ref: refs.leaderSettings(application), value: { application, settings, version: 1 } }, holds],
      result: { version: 1 },
    };
  }
  const version = current.version + 1;
  return {
    changes: [
      { op: 'update', ref: refs.leaderSettings(application), set: { settings, version }, expect: { equals: { version: current.version } } },
      holds,
    ],
    result: { version },
  };
}

/**
 * The sweep's release of a lease that has run out: its holder did not renew it (lost, dead, cut
 * off). Deleting it tells the other units (its stream record hints them), and the first to claim
 * leads. Asserts the holder and expiry it judged, so a renewal that came first wins.
 */
export function planReleaseAbandoned(lease: Lease | undefined, now: Date): Plan<{ released: boolean }> {
  if (!lease || !isClaimable(lease, now)) return done({ released: false });
  return {
    changes: [
      { op: 'remove', ref: refs.lease(lease.application), expect: { equals: { holder: lease.holder, expiresAt: lease.expiresAt } } },
    ],
    result: { released: true },
  };
}
