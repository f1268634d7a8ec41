// A hook's storage-add calls: counts by storage name, added up over the hook's calls (Juju's
// HookContext.AddUnitStorage accumulates them) and sent only when the hook commits, after its
// other changes, one `storage-add` per name (the controller checks the charm's range in one
// transaction for each). A hook that fails adds nothing.
import type { StorageCalls } from '../storage/storage-api.js';

export class StorageRequests {
  private readonly counts = new Map<string, number>();

  add(counts: Record<string, number>): void {
    for (const [name, count] of Object.entries(counts)) this.counts.set(name, (this.counts.get(name) ?? 0) + count);
  }

  async flush(calls: StorageCalls, unit: string): Promise<void> {
    for (const [name, count] of this.counts) await calls.add(unit, name, count);
  }
}
