// A unit's storage over its life: more of it (add-storage, the storage-add hook tool), the agent
// saying where it made it available (storage-attached), and the agent letting go of it after
// -storage-detaching (storage-detached). The rules are in shared/domain/plans/unit-storage.ts.
import type { Application, Model, Unit } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import {
  planAddUnitStorage,
  planDetachStorage,
  planRemoveStorage,
  planStorageAttached,
  planStorageDetached,
  type DetachedResult,
} from '../../domain/plans/unit-storage.js';
import {
  addStorageDirective,
  type StorageAttachment,
  type StorageConstraints,
  type StorageInstance,
  type StorageProvider,
} from '../../domain/storage.js';
import { getBatch, getItem, getMany } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** Instances of store `name` the unit holds: its attached ids are `<name>/<n>`. */
const heldOf = (unit: Unit, name: string) => (unit.storageAttachments ?? []).filter((id) => id.startsWith(`${name}/`)).length;

/**
 * `count` more instances of store `name` for a unit, each attached to it, in one transaction;
 * what the constraints leave out comes from the application's directive. The new ids.
 */
export async function addUnitStorage(
  store: Store,
  unitName: string,
  name: string,
  constraints: StorageConstraints,
  provider: StorageProvider,
): Promise<string[]> {
  const reservations = new NumberReservations(store);
  const attempt: Attempt<string[]> = async (store) => {
    const unit = await getItem<Unit>(store, refs.unit(unitName));
    if (!unit) throw notFound(`unit "${unitName}" not found`);
    const [application] = await getBatch<[Application]>(store, [refs.application(unit.application)]);
    if (!application) throw notFound(`application "${unit.application}" not found`);
    const current = heldOf(unit, name);
    const directive = addStorageDirective(application.charm, name, constraints, current, application.storage?.[name], provider);
    return reservations.plan((numbers) =>
      planAddUnitStorage({ unit, application, current }, { unit: unitName, name, directive, numbers, now: store.now().toISOString() }),
    );
  };
  return runOperation(store, `cannot add storage to unit "${unitName}"`, attempt);
}

/** storage-attached: the agent made storage `storage` available to its unit at `location`. */
export async function storageAttached(store: Store, unit: string, storage: string, location: string): Promise<{ result: string }> {
  return {
    result: await runOperation(store, `cannot record storage ${storage} attached to unit "${unit}"`, async (store) => {
      const attachment = await getItem<StorageAttachment>(store, refs.storageAttachment(storage, unit));
      return planStorageAttached(attachment ? { attachment } : {}, { unit, storage, location });
    }),
  };
}

/** storage-detached: the agent ran -storage-detaching; the Dying attachment goes, and the instance as its pool says. */
export async function storageDetached(store: Store, unit: string, storage: string): Promise<{ result: DetachedResult }> {
  return {
    result: await runOperation(store, `cannot detach storage ${storage} from unit "${unit}"`, async (store) => {
      const [unitItem, attachment, instance, model] = await getBatch<[Unit, StorageAttachment, StorageInstance, Model]>(store, [
        refs.unit(unit),
        refs.storageAttachment(storage, unit),
        refs.storage(storage),
        refs.model(),
      ]);
      const application = unitItem ? await getItem<Application>(store, refs.application(unitItem.application)) : undefined;
      const destroyStorage =
        unitItem?.destroyStorage === true || application?.destroyStorage === true || model?.storageDisposal === 'destroy';
      const releaseStorage = model?.storageDisposal === 'release';
      return planStorageDetached(
        {
          ...(unitItem ? { unit: unitItem } : {}),
          ...(attachment ? { attachment } : {}),
          ...(instance ? { instance } : {}),
          destroyStorage,
          releaseStorage,
        },
        { unit, storage },
      );
    }),
  };
}

async function instanceWithAttachments(store: Store, id: string) {
  const [instance] = await getBatch<[StorageInstance]>(store, [refs.storage(id)]);
  const attachments = instance
    ? await getMany<StorageAttachment>(
        store,
        instance.attachments.map((unit) => refs.storageAttachment(id, unit)),
      )
    : [];
  return { ...(instance ? { instance } : {}), attachments };
}

/** detach-storage: its attachments go Dying; the agents detach it. */
export async function detachStorage(store: Store, id: string): Promise<void> {
  await runOperation(store, `cannot detach storage ${id}`, async (store) =>
    planDetachStorage(await instanceWithAttachments(store, id), id),
  );
}

/** remove-storage [--force] [--no-destroy]. */
export async function removeStorage(store: Store, id: string, options: { force?: boolean; release?: boolean } = {}): Promise<void> {
  await runOperation(store, `cannot remove storage ${id}`, async (store) =>
    planRemoveStorage(await instanceWithAttachments(store, id), { id, force: options.force === true, release: options.release === true }),
  );
}
