// The agent's heartbeat: status shows a machine `down` and its units `lost` when the agent has not
// been seen on the API for a while (shared/domain/presence.ts), so an idle agent must still speak
// now and then. Every API request counts (the controller records presence on any of them), so the
// heartbeat is sent only when the agent has been silent for the whole interval: each request
// pushes it back, and an agent busy or resyncing anyway never sends one. Cost: at most one
// request per interval (5 min, jittered up to 6 so agents started together drift apart).
import type { AgentApi } from '../api-client.js';
import { systemClock, type Clock, type Timer } from '../clock.js';

export interface HeartbeatOptions {
  intervalMs: number;
  send: () => Promise<void>;
  onError: (e: unknown) => void;
  clock?: Clock;
}

/** After a failed heartbeat, try again this much sooner than a full interval. */
const RETRY_FRACTION = 0.2;

export class Heartbeat {
  private timer?: Timer;
  private stopped = false;
  private readonly clock: Clock;

  constructor(private readonly options: HeartbeatOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** The agent just spoke to the API: the next heartbeat is a full interval from now. */
  spoke(): void {
    this.schedule(this.options.intervalMs * (1 + Math.random() * 0.2));
  }

  start(): void {
    this.spoke();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.clock.after(ms, () => void this.beat());
  }

  private async beat(): Promise<void> {
    try {
      // Success reschedules through spoke(), as any request does.
      await this.options.send();
    } catch (e) {
      this.options.onError(e);
      this.schedule(this.options.intervalMs * RETRY_FRACTION);
    }
  }
}

/** The API, telling the heartbeat about every request the controller answered. */
export function withHeartbeat(api: AgentApi, heartbeat: Heartbeat): AgentApi {
  return {
    url: api.url,
    async call(op, body) {
      const result = await api.call(op, body);
      heartbeat.spoke();
      return result as never;
    },
  };
}
