// The user API's storage operations (Juju 3.6's cmd/juju/storage commands): list and show, the
// pools, add-storage, detach-storage, remove-storage.
import type { Operation, RequestOf } from '#shared/api/requests.js';
import type { EntityResult } from '#shared/api/requests.js';
import { DroverError, errorMessage, invalidArgument } from '#shared/domain/errors.js';
import { parseStorageConstraints, storageIdOf, storagePools } from '#shared/domain/storage.js';
import { storageDocument } from '#shared/domain/storage-views.js';
import { addUnitStorage, detachStorage, removeStorage } from '#shared/state/operations/unit-storage.js';
import { readStorage } from '#shared/state/queries/storage.js';
import type { Store } from '#shared/state/engine/store.js';
import type { StorageProvider } from '#shared/domain/storage.js';

/** What these routes use of the user context (functions/api/user-routes.ts). */
interface StorageContext {
  store: Store;
  storageProvider?: StorageProvider;
}

type StorageOperation = 'storage' | 'show-storage' | 'storage-pools' | 'add-storage' | 'detach-storage' | 'remove-storage';
type Route<O extends Operation> = (ctx: StorageContext, body: RequestOf<O>) => Promise<unknown>;

/** `data/0`, `data-0` or `storage-data-0` → `data/0`; anything else is refused in Juju's words. */
function storageId(text: string): string {
  const id = storageIdOf(text);
  if (!id) throw invalidArgument(`storage ID ${JSON.stringify(text)} not valid`);
  return id;
}

/** Each id tried, each with its own line (Juju's bulk storage commands). */
async function eachStorage(ids: string[], verb: string, act: (id: string) => Promise<unknown>): Promise<EntityResult[]> {
  const results: EntityResult[] = [];
  for (const text of ids) {
    try {
      const id = storageId(text);
      await act(id);
      results.push({ entity: id, ok: true, message: `${verb} ${id}` });
    } catch (e) {
      if (!(e instanceof DroverError)) throw e;
      results.push({ entity: text, ok: false, message: `failed to ${verb.replace(/ing$/, '')} ${text}: ${errorMessage(e)}` });
    }
  }
  return results;
}

export const storageRoutes: { [O in StorageOperation]: Route<O> } = {
  storage: async (ctx) => storageDocument(await readStorage(ctx.store)),
  'show-storage': async (ctx, body) => {
    const ids = body.ids.map(storageId);
    const details = await readStorage(ctx.store, ids);
    const missing = ids.filter((id) => !details.some((d) => d.instance.id === id));
    if (missing.length) throw new DroverError('not-found', `storage ${missing.join(', ')} not found`);
    return storageDocument(details);
  },
  'storage-pools': async (ctx) => ({
    pools: Object.fromEntries(storagePools(ctx.storageProvider ?? 'local').map((p) => [p.name, { provider: p.provider }])),
  }),
  'add-storage': async (ctx, body) => {
    const results: { storage: string; ok: boolean; message: string }[] = [];
    for (const [name, text] of Object.entries(body.storage)) {
      try {
        let constraints;
        try {
          constraints = parseStorageConstraints(text);
        } catch (e) {
          throw invalidArgument(`cannot parse constraints for storage ${JSON.stringify(name)}: ${errorMessage(e)}`);
        }
        const ids = await addUnitStorage(ctx.store, body.unit, name, constraints, ctx.storageProvider ?? 'local');
        for (const id of ids) results.push({ storage: name, ok: true, message: `added storage ${id} to ${body.unit}` });
      } catch (e) {
        if (!(e instanceof DroverError)) throw e;
        results.push({
          storage: name,
          ok: false,
          message: `failed to add storage ${JSON.stringify(name)} to ${body.unit}: ${errorMessage(e)}`,
        });
      }
    }
    return { results };
  },
  'detach-storage': async (ctx, body) => ({ results: await eachStorage(body.ids, 'detaching', (id) => detachStorage(ctx.store, id)) }),
  'remove-storage': async (ctx, body) => ({
    results: await eachStorage(body.ids, 'removing', (id) =>
      removeStorage(ctx.store, id, { force: body.force === true, release: body.noDestroy === true }),
    ),
  }),
};
