// The unit agent's side of leadership (shared/domain/leadership.ts): what it knows of its own
// lease, so that `is-leader`, which ops calls in almost every hook, costs no request while the
// lease is known to hold for Juju's 30 s more; only then does it claim (extend) again.
import { guaranteesLeadership, leaderUntil, type LeadershipView } from '../../shared/domain/leadership.js';
import type { ClaimResult } from '../../shared/domain/plans/leadership.js';
import type { AgentApi } from '../api-client.js';

export class LeadershipTracker {
  /** The agent's own clock until which it holds the lease; absent: not known to hold it. */
  private validUntil: number | undefined;

  constructor(
    private readonly api: AgentApi,
    private readonly unitName: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Claims the lease (takes it if free, extends it if held), timing from before the request. */
  async claim(): Promise<ClaimResult> {
    const sentAt = this.clock();
    const result = await this.api.call<ClaimResult>('claim-leadership', { unit: this.unitName });
    this.validUntil = result.leader ? leaderUntil(sentAt) : undefined;
    return result;
  }

  /**
   * is-leader: True from memory while the lease holds for 30 s more. False from the view when
   * another unit holds a lease nobody may take (a stale False only delays; a True is a promise).
   * Otherwise a claim, which extends the lease of a leader that was idle.
   */
  async isLeader(view: LeadershipView | undefined): Promise<boolean> {
    if (guaranteesLeadership(this.validUntil, this.clock())) return true;
    if (view?.holder !== undefined && view.holder !== this.unitName && !view.claimable) return false;
    return (await this.claim()).leader;
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
