// The lease rules: a lease that has run out is free whatever became of its holder (Juju's
// semantics: a holder that did not renew it is lost, dead or cut off); one that has not run out
// is never handed over; only an Alive unit of the application may take or extend it.
import { describe, expect, it } from 'vitest';
import { isClaimable, leaderUntil, renewAt, type Lease } from '#shared/domain/leadership.js';
import { planClaimLeadership, planReleaseAbandoned } from '#shared/domain/plans/leadership.js';
import { unit } from './destruction-fixtures.js';

const NOW = new Date('2026-01-01T00:10:00.000Z');
const LEASE_MS = 330_000;
const leaseUntil = (holder: string, expiresAt: string): Lease => ({ application: 'mysql', holder, expiresAt });
const runOut = leaseUntil('mysql/0', '2026-01-01T00:10:00.000Z');
const running = leaseUntil('mysql/0', '2026-01-01T00:10:00.001Z');
const facts = (lease: Lease | undefined, claimant = unit('mysql/1')) => ({
  lease,
  claimant,
  claimantSilent: false,
  now: NOW,
  durationMs: LEASE_MS,
});

describe('isClaimable', () => {
  it('is true with no lease or one that has run out, false a millisecond before', () => {
    expect(isClaimable(undefined, NOW)).toBe(true);
    expect(isClaimable(runOut, NOW)).toBe(true);
    expect(isClaimable(running, NOW)).toBe(false);
  });
});

describe('leaderUntil and renewAt', () => {
  it('count a 5.5-min lease from before the claim, less a 5 s margin, and renew 45 s before that', () => {
    expect(leaderUntil(0, LEASE_MS)).toBe(325_000);
    expect(renewAt(leaderUntil(0, LEASE_MS), LEASE_MS)).toBe(280_000);
  });
});

describe('planClaimLeadership', () => {
  it('takes a run-out lease from its holder, asserting the holder and expiry it read, for the controller’s length', () => {
    const plan = planClaimLeadership(facts(runOut), 'mysql', 'mysql/1');
    const expiresAt = new Date(NOW.getTime() + LEASE_MS).toISOString();
    expect(plan.result).toEqual({ leader: true, holder: 'mysql/1', expiresAt, durationMs: LEASE_MS });
    expect(plan.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'lease', application: 'mysql' },
        set: { holder: 'mysql/1', expiresAt },
        expect: { equals: { holder: 'mysql/0', expiresAt: runOut.expiresAt } },
      },
      { op: 'check', ref: { kind: 'unit', name: 'mysql/1' }, expect: { life: 'alive' } },
    ]);
  });

  it('never takes another unit’s lease that has not run out', () => {
    expect(planClaimLeadership(facts(running), 'mysql', 'mysql/1')).toEqual({
      changes: [],
      result: { leader: false, holder: 'mysql/0', expiresAt: running.expiresAt },
    });
  });

  it('extends the holder’s own lease at any time', () => {
    const plan = planClaimLeadership(facts(running, unit('mysql/0')), 'mysql', 'mysql/0');
    expect(plan.result).toMatchObject({ leader: true, holder: 'mysql/0', durationMs: LEASE_MS });
  });

  it('refuses a Dying claimant, or one of another application, even a free lease', () => {
    expect(planClaimLeadership(facts(undefined, unit('mysql/1', { life: 'dying' })), 'mysql', 'mysql/1')).toEqual({
      changes: [],
      result: { leader: false },
    });
    expect(planClaimLeadership(facts(runOut, unit('mysql/0', { life: 'dying' })), 'mysql', 'mysql/0').result.leader).toBe(false);
    expect(planClaimLeadership(facts(undefined, unit('wordpress/1')), 'mysql', 'wordpress/1').result.leader).toBe(false);
  });
});

describe('planReleaseAbandoned', () => {
  it('frees a run-out lease, asserting what it judged, and leaves one that has not run out', () => {
    expect(planReleaseAbandoned(runOut, NOW)).toEqual({
      changes: [
        {
          op: 'remove',
          ref: { kind: 'lease', application: 'mysql' },
          expect: { equals: { holder: 'mysql/0', expiresAt: runOut.expiresAt } },
        },
      ],
      result: { released: true },
    });
    expect(planReleaseAbandoned(running, NOW)).toEqual({ changes: [], result: { released: false } });
    expect(planReleaseAbandoned(undefined, NOW)).toEqual({ changes: [], result: { released: false } });
  });
});
