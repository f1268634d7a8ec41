// "Last seen" for agents: every agent API request that succeeds proves the machine's agent is
// alive and talking, so the API records it (shared/state/operations/presence.ts), and status shows
// silent agents as lost/down (shared/domain/presence.ts). The agent's own heartbeat is just one
// more such request, sent only when the agent has had nothing else to say for 5–6 minutes.
//
// Writes are throttled without any extra read: this container remembers when it last recorded
// each machine, and writes only once that is older than the write interval. Another container
// (Lambda runs several) does not share the memory, so the write is conditional on the stored time
// being older than the interval too: across all containers a machine's presence item changes, and
// sends a stream record, at most once per interval. A container that finds the condition failed
// remembers it as recorded, since someone just did.
import type { Logger } from '@aws-lambda-powertools/logger';
import { presenceWriteIntervalMs } from '#shared/domain/presence.js';
import { recordPresence } from '#shared/state/operations/presence.js';
import type { Store } from '#shared/state/engine/store.js';

/** Forgets all when this many machines are remembered: a cold cache costs one write per machine, nothing more. */
const MAX_REMEMBERED = 100_000;

export class PresenceRecorder {
  private readonly recordedAt = new Map<string, number>();
  private readonly intervalMs: number;

  constructor(
    private readonly store: Store,
    lostAfterMs: number,
    private readonly logger: Logger,
  ) {
    this.intervalMs = presenceWriteIntervalMs(lostAfterMs);
  }

  /**
   * The machine's agent made a request now; `store` is its model's (machine ids repeat across
   * models, so it is remembered by both). Never fails the request: presence is a courtesy to status.
   */
  async seen(machine: string, store: Store = this.store): Promise<void> {
    const now = store.now().getTime();
    const remembered = `${store.model}\u0000${machine}`;
    const last = this.recordedAt.get(remembered);
    if (last !== undefined && now - last < this.intervalMs) return;
    // Remembered before the write: the agent's other requests in flight meanwhile (a starting
    // agent sends several at once) do not each write it too.
    if (this.recordedAt.size >= MAX_REMEMBERED) this.recordedAt.clear();
    this.recordedAt.set(remembered, now);
    try {
      await recordPresence(store, machine, this.intervalMs);
    } catch (e) {
      // Unremembered: the agent's next request tries again.
      if (this.recordedAt.get(remembered) === now) this.recordedAt.delete(remembered);
      this.logger.warn('cannot record agent presence', { model: store.model, machine, error: e as Error });
    }
  }
}
