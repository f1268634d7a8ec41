// When each machine's agent was last seen (shared/domain/presence.ts), as status reads it; the
// writes are in shared/state/operations/presence.ts.
import { refs } from '../../domain/plan.js';
import { getEach } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

/** A machine's presence item: when its agent was last seen, and when the item expires. */
export interface PresenceItem {
  machine: string;
  seenAt: string;
  expiresAt: number;
}

/** When each machine's agent was last seen, for those that have a presence item. */
export async function readPresence(store: Store, machines: string[]): Promise<Record<string, string>> {
  const items = await getEach<PresenceItem>(store, machines.map(refs.presence));
  const lastSeen: Record<string, string> = {};
  for (const item of items) if (item) lastSeen[item.machine] = item.seenAt;
  return lastSeen;
}
