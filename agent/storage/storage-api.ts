// The agent's calls of the storage contract's agent routes: `storage-attached` (the agent made the
// storage ready at `location`), `storage-detached` (the Dying attachment's detaching hook ran, or
// never had to: it goes Dead and away) and `storage-add` (a hook's storage-add, when it commits).
// Each is idempotent on the controller, as every agent request is (agent/api-client.ts retries).
import type { AgentApi } from '../api-client.js';
import type { AgentOperation, AgentRequestOf } from '#shared/api/agent-requests.js';

type StorageOperation = 'storage-attached' | 'storage-detached' | 'storage-add';

export interface StorageCalls {
  attached(unit: string, storage: string, location: string): Promise<void>;
  detached(unit: string, storage: string): Promise<void>;
  add(unit: string, name: string, count: number): Promise<void>;
}

export function storageCalls(api: AgentApi): StorageCalls {
  // The storage routes' names, typed once here: the one place the agent names them.
  const call = async (op: StorageOperation, body: Record<string, unknown>) => {
    await api.call(op as string as AgentOperation, body as AgentRequestOf<AgentOperation>);
  };
  return {
    attached: (unit, storage, location) => call('storage-attached', { unit, storage, location }),
    detached: (unit, storage) => call('storage-detached', { unit, storage }),
    add: (unit, name, count) => call('storage-add', { unit, name, count }),
  };
}
