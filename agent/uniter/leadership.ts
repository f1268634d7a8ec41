// The unit agent's side of leadership (shared/domain/leadership.ts): what it knows of its own
// lease, so that `is-leader`, which ops calls in almost every hook, costs no request while the
// lease is known to hold for Juju's 30 s more; and when to renew it, which the uniter does
// while it leads (decide.ts, renewLeadershipDue), before that guarantee runs short.
import { guaranteesLeadership, leaderUntil, renewAt, type LeadershipView } from '#shared/domain/leadership.js';
import type { ClaimResult } from '#shared/domain/plans/leadership.js';
import type { AgentApi } from '../api-client.js';
import { systemClock, type Clock } from '../clock.js';

export class LeadershipTracker {
  /** The agent's own clock until which it holds the lease; absent: not known to hold it. */
  private validUntil: number | undefined;
  /** The length of the lease last granted, as the controller said. */
  private durationMs = 0;

  constructor(
    private readonly api: AgentApi,
    private readonly unitName: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Claims the lease (takes it if free, extends it if held), timing from before the request. */
  async claim(): Promise<ClaimResult> {
    const sentAt = this.clock.now();
    const result = await this.api.call<ClaimResult>('claim-leadership', { unit: this.unitName });
    this.durationMs = result.durationMs ?? 0;
    this.validUntil = result.leader && result.durationMs !== undefined ? leaderUntil(sentAt, result.durationMs) : undefined;
    return result;
  }

  /**
   * is-leader: True from memory while the lease holds for 30 s more. False from the view when
   * another unit holds a lease nobody may take (a stale False only delays; a True is a promise).
   * Otherwise a claim, which extends the lease of a leader whose renewal has not come yet.
   */
  async isLeader(view: LeadershipView | undefined): Promise<boolean> {
    if (guaranteesLeadership(this.validUntil, this.clock.now())) return true;
    if (view?.holder !== undefined && view.holder !== this.unitName && !view.claimable) return false;
    return (await this.claim()).leader;
  }

  /**
   * How long until a leader must renew (0: now). A leader that does not know its lease (the
   * agent restarted) renews at once: it cannot tell how long the lease it holds has left.
   */
  renewalDueInMs(): number {
    if (this.validUntil === undefined) return 0;
    return Math.max(0, renewAt(this.validUntil, this.durationMs) - this.clock.now());
  }

  /** The lease was released or lost: stop answering True from memory. */
  forget(): void {
    this.validUntil = undefined;
  }

  async release(): Promise<void> {
    this.validUntil = undefined;
    await this.api.call('release-leadership', { unit: this.unitName });
  }
}
