// The agent's calls of the storage contract's agent routes: `storage-attached` (the agent made the
// storage ready at `location`), `storage-detached` (the Dying attachment's detaching hook ran, or
// never had to: it goes Dead and away) and `storage-add` (a hook's storage-add, when it commits).
// Each is idempotent on the controller, as every agent request is (agent/api-client.ts retries).
import type { AgentApi } from '../api-client.js';

export interface StorageCalls {
  attached(unit: string, storage: string, location: string): Promise<void>;
  detached(unit: string, storage: string): Promise<void>;
  add(unit: string, name: string, count: number): Promise<void>;
}

export function storageCalls(api: AgentApi): StorageCalls {
  return {
    attached: async (unit, storage, location) => void (await api.call('storage-attached', { unit, storage, location })),
    detached: async (unit, storage) => void (await api.call('storage-detached', { unit, storage })),
    add: async (unit, name, count) => void (await api.call('storage-add', { unit, name, count })),
  };
}
