// "model": the cleanup of a Dying model (shared/domain/plans/destroy-model.ts). It goes round in
// three phases, one bounded batch per run: destroy a page of the model's applications (their
// units, relations and subordinates then go as the lifecycle has them go), destroy a page of its
// machines that host no units (those that do go Dying with their last unit), and once nothing is
// left, remove the model (remove-model.ts). While something is left (units waiting for their
// agents, a unit in error) it waits a little and goes round again, so a model forced later, or an
// entity whose destruction failed once, is taken up at the next round: level-triggered, like
// Juju's undertaker. With `force` set on the model, each round forces instead.
import type { Model } from '../../../domain/entities.js';
import { isDroverError } from '../../../domain/errors.js';
import { destroyApplication } from '../destroy-application.js';
import { destroyMachine } from '../destroy-machine.js';
import { forceDestroyApplication, forceDestroyMachine } from '../force.js';
import { forgetUnitNumbers, removeModelIfEmpty } from '../remove-model.js';
import { removeCrossModelEntries } from './cross-model.js';
import { collections } from '../../engine/keys.js';
import { getMachine, getModel, listCollection } from '../../engine/reads.js';
import type { Store } from '../../engine/store.js';
import type { CleanupStep } from './step.js';

/** Applications or machines destroyed per batch: each may be several transactions. */
export const MODEL_BATCH = 10;
/** How long a round waits before the next while agents finish their units. */
export const MODEL_ROUND_WAIT_MS = 10_000;
/**
 * How long after the model went Dying it may be removed: the collections are read from an
 * eventually consistent index, so an application made just before the model went Dying gets
 * this long to appear in it.
 */
export const INDEX_SETTLE_MS = 2_000;

type Position = { phase: 'applications'; page?: string } | { phase: 'machines'; shard: number; page?: string } | { phase: 'remove' };

const decode = (cursor?: string): Position => (cursor ? (JSON.parse(cursor) as Position) : { phase: 'applications' });
const encode = (position: Position) => JSON.stringify(position);
const after = (store: Store, ms: number) => new Date(store.now().getTime() + ms).toISOString();

/** Gone meanwhile, or refused for a reason the next round sees again (units still assigned). */
const passedOver = (e: unknown) => isDroverError(e, 'not-found') || isDroverError(e, 'has-assignments') || isDroverError(e, 'not-alive');

async function tolerant(action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (e) {
    if (!passedOver(e)) throw e;
  }
}

export const destroyModelContents: CleanupStep = async (store, cleanup) => {
  const model = await getModel(store);
  // Removed (this document went with it, unless a run died in between), or never Dying.
  if (!model || model.life === 'alive') return {};
  const position = decode(cleanup.cursor);
  switch (position.phase) {
    case 'applications': {
      if (!position.page) await removeCrossModelEntries(store, model.force === true);
      const page = await listCollection(store, collections.applications(store.model), {
        limit: MODEL_BATCH,
        ...(position.page ? { cursor: position.page } : {}),
      });
      for (const ref of page.items) if (ref.kind === 'application') await destroyOneApplication(store, model, ref.name);
      return { cursor: encode(page.cursor ? { phase: 'applications', page: page.cursor } : { phase: 'machines', shard: 0 }) };
    }
    case 'machines': {
      const shards = collections.machineShards(store.model);
      const page = await listCollection(store, shards[position.shard]!, {
        limit: MODEL_BATCH,
        ...(position.page ? { cursor: position.page } : {}),
      });
      for (const ref of page.items) if (ref.kind === 'machine') await tolerant(() => destroyOneMachine(store, model, ref.id));
      const next: Position = page.cursor
        ? { phase: 'machines', shard: position.shard, page: page.cursor }
        : position.shard + 1 < shards.length
          ? { phase: 'machines', shard: position.shard + 1 }
          : { phase: 'remove' };
      return { cursor: encode(next) };
    }
    case 'remove': {
      const settled = new Date(Date.parse(cleanup.createdAt) + INDEX_SETTLE_MS).toISOString();
      if (store.now().toISOString() < settled) return { cursor: encode({ phase: 'remove' }), notBefore: settled };
      if ((await removeModelIfEmpty(store, cleanup.id)) !== 'not-empty') return {};
      return { cursor: encode({ phase: 'applications' }), notBefore: after(store, MODEL_ROUND_WAIT_MS) };
    }
  }
};

async function destroyOneApplication(store: Store, model: Model, name: string): Promise<void> {
  const options = model.storageDisposal === 'destroy' ? { destroyStorage: true } : {};
  await tolerant(() => (model.force ? forceDestroyApplication(store, name, options) : destroyApplication(store, name, options)));
  // Destroyed (Dying or gone) now, so its unit numbers can go: nothing lists them later.
  await forgetUnitNumbers(store, name);
}

/**
 * A machine hosting units goes Dying when its last unit is removed (remove-unit), so only empty
 * ones are destroyed here; forced, every machine goes, with its units.
 */
async function destroyOneMachine(store: Store, model: Model, id: string): Promise<void> {
  if (model.force) return forceDestroyMachine(store, id);
  const machine = await getMachine(store, id);
  if (machine?.life === 'alive' && machine.principals.length === 0) await destroyMachine(store, id);
}
