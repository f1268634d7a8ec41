// Storage attachments on the machine (./decide-storage.ts decides which step): made ready and
// reported attached; released and reported detached after the detaching hook; forgotten once the
// view no longer shows them. Juju's storage attachments, internal/worker/uniter/storage/attachments.go,
// with the machine's part (Juju's storage provisioner) done by the unit's own agent here.
import { errorMessage } from '#shared/domain/errors.js';
import { charmStorageMeta } from '../../storage/charm-storage.js';
import { StorageNotReady } from '../../storage/machine-storage.js';
import { storageCalls } from '../../storage/storage-api.js';
import { withStorage } from '../local-state.js';
import { MODULE, type StepOf, type UnitContext } from '../unit-context.js';

/** How long a unit waits before looking again for a volume that has not appeared on the machine. */
const NOT_READY_RETRY_MS = 5_000;
/** How long before it tries again storage it failed to make ready (a mount refused, a bad location). */
const FAILED_RETRY_MS = 30_000;

export async function attachStorage(ctx: UnitContext, step: StepOf<'attach-storage'>): Promise<void> {
  const { storage } = step;
  const view = await ctx.view();
  const unit = view.units.find((u) => u.name === ctx.deps.unitName);
  const application = view.applications.find((a) => a.name === unit?.application);
  let location: string;
  try {
    location = await ctx.deps.machineStorage.prepare(storage, charmStorageMeta(application, storage.name));
  } catch (e) {
    // Not the unit agent's failure: the storage stays unattached (its hooks unrun) and is tried again.
    if (e instanceof StorageNotReady) ctx.logger.info(MODULE, e.message);
    else ctx.logger.error(MODULE, `cannot attach storage ${storage.id}: ${errorMessage(e)}`);
    await ctx.signal.wait(e instanceof StorageNotReady ? NOT_READY_RETRY_MS : FAILED_RETRY_MS);
    return;
  }
  await storageCalls(ctx.deps.api).attached(ctx.deps.unitName, storage.id, location);
  ctx.logger.info(MODULE, `storage ${storage.id} attached at ${location}`);
  await ctx.deps.view.refresh();
}

export async function detachStorage(ctx: UnitContext, step: StepOf<'detach-storage'>): Promise<void> {
  const { storage } = step;
  await ctx.deps.machineStorage.release(storage);
  await storageCalls(ctx.deps.api).detached(ctx.deps.unitName, storage.id);
  ctx.save(withStorage(ctx.local, storage.id, 'detached'));
  ctx.logger.info(MODULE, `storage ${storage.id} detached`);
  await ctx.deps.view.refresh();
}

export async function forgetStorage(ctx: UnitContext, step: StepOf<'forget-storage'>): Promise<void> {
  ctx.save(withStorage(ctx.local, step.storage, undefined));
}
