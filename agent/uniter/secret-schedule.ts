// The unit agent's view of its secrets, for the secret hooks: what state says it manages and
// consumes (the `secret-hook-state` route; no content), read again only when something may have
// changed it (a secret hint, a resync, a secret hook or tool call, leadership), and the time the
// next rotation or expiry falls due, so the idle uniter wakes for it on its clock, as Juju's
// secretrotate and secretexpire workers wake the uniter
// (https://github.com/juju/juju/tree/3.6/internal/worker/secretrotate). Everything it reads is
// state, so a restarted agent finds the same schedule.
import type { Unit } from '#shared/domain/entities.js';
import { nextSecretHook, type SecretHook, type UnitSecretHookState } from '#shared/domain/secret-hooks.js';
import type { AgentApi } from '../api-client.js';
import type { Clock } from '../clock.js';
import { noSecretHooks, type LocalState } from './local-state.js';

export class SecretSchedule {
  private state: UnitSecretHookState = { owned: [], consumed: [] };
  private stale = true;

  constructor(
    private readonly api: AgentApi,
    private readonly unitName: string,
    private readonly clock: Clock,
  ) {}

  /** Something may have changed the unit's secrets: read them again before the next decision. */
  markStale(): void {
    this.stale = true;
  }

  /** The secret hook due now, if the unit may run one (installed, Alive, no hook in error). */
  async due(local: LocalState, unit: Unit | undefined): Promise<SecretHook | undefined> {
    if (!local.installed || unit?.life !== 'alive' || local.error) return undefined;
    if (this.stale) {
      const answer = await this.api.call<Partial<UnitSecretHookState>>('secret-hook-state', { unit: this.unitName });
      this.state = { owned: answer.owned ?? [], consumed: answer.consumed ?? [] };
      this.stale = false;
    }
    return nextSecretHook({
      installed: true,
      dying: false,
      busy: false,
      now: new Date(this.clock.now()),
      ...this.state,
      done: local.secretHooks ?? noSecretHooks(),
    });
  }

  /** How long until the next rotation or expiry of what the unit manages falls due; undefined: none is coming. */
  wakeInMs(): number | undefined {
    const now = this.clock.now();
    const times = this.state.owned.flatMap((s) => [s.nextRotateTime, ...s.revisions.map((r) => r.expireTime)]);
    const ahead = times.filter((t): t is string => t !== undefined).map((t) => Date.parse(t) - now);
    const next = Math.min(...ahead.filter((ms) => ms > 0));
    return Number.isFinite(next) ? next : undefined;
  }
}
