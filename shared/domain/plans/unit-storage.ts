// A unit's storage: made with the unit (deploy, add-unit) or later (add-storage, the storage-add
// hook tool), let go of when the unit goes (its attachments Dying, then Dead once its agent ran
// -storage-detaching), as Juju 3.6's state/storage.go does
// (https://github.com/juju/juju/blob/3.6/state/storage.go). shared/domain/storage.ts says why an
// attachment is its own item and how the sets keep the rules assertable.
import type { Application, Unit } from '../entities.js';
import { invalidArgument, notAlive, notFound } from '../errors.js';
import { refs, type Change, type Plan } from '../plan.js';
import { sequenceNames, type Numbers } from '../sequences.js';
import {
  knownPool,
  unitTag,
  type StorageAttachment,
  type StorageDefinition,
  type StorageDirective,
  type StorageInstance,
} from '../storage.js';

export interface NewStorage {
  changes: Change[];
  /** The new instances' ids, in the order made: the unit's `storageAttachments` gain them. */
  ids: string[];
}

/** Instances one unit gets from its application's directives. */
export const instancesPerUnit = (application: Pick<Application, 'storage'>) =>
  Object.values(application.storage ?? {}).reduce((sum, d) => sum + d.count, 0);

/**
 * Instances and their attachments for a unit: `count` of each directive, numbered from the
 * model's storage sequence. The unit's own item is the caller's (created with the ids, or
 * updated to add them).
 */
export function newUnitStorage(input: {
  charm: Pick<Application['charm'], 'storage'>;
  directives: Record<string, StorageDirective>;
  unit: string;
  machine?: string;
  numbers: Numbers;
  now: string;
}): NewStorage {
  const changes: Change[] = [];
  const ids: string[] = [];
  for (const [name, directive] of Object.entries(input.directives)) {
    if (directive.count <= 0) continue;
    const definition = input.charm.storage?.[name];
    if (!definition) continue;
    for (const n of input.numbers.take(sequenceNames.storage, directive.count)) {
      const id = `${name}/${n}`;
      changes.push(...createInstance(id, name, definition, directive, input));
      ids.push(id);
    }
  }
  return { changes, ids };
}

function createInstance(
  id: string,
  name: string,
  definition: StorageDefinition,
  directive: StorageDirective,
  input: { unit: string; machine?: string; now: string },
): Change[] {
  const instance: StorageInstance = {
    id,
    name,
    kind: definition.type,
    pool: directive.pool,
    size: directive.size,
    owner: unitTag(input.unit),
    life: 'alive',
    persistent: knownPool(directive.pool)?.persistent ?? false,
    attachments: [input.unit],
    ...(definition.location ? { location: definition.location } : {}),
    ...(definition.readOnly ? { readOnly: true } : {}),
    createdAt: input.now,
  };
  const attachment: StorageAttachment = {
    storage: id,
    unit: input.unit,
    life: 'alive',
    ...(input.machine !== undefined ? { machine: input.machine } : {}),
  };
  return [
    { op: 'create', ref: refs.storage(id), value: { ...instance } },
    { op: 'create', ref: refs.storageAttachment(id, input.unit), value: { ...attachment } },
  ];
}

export interface AddStorageSnapshot {
  unit?: Unit;
  application?: Application;
  /** The unit's instances of the store being added to. */
  current: number;
}

/**
 * add-storage / storage-add: more instances of one store for an Alive unit, in one transaction
 * with the unit (which asserts how many it had, so two adds at once cannot pass the maximum).
 */
export function planAddUnitStorage(
  snapshot: AddStorageSnapshot,
  intent: { unit: string; name: string; directive: StorageDirective; numbers: Numbers; now: string },
): Plan<string[]> {
  const { unit, application } = snapshot;
  if (!unit || !application) throw notFound(`unit "${intent.unit}" not found`);
  if (unit.life !== 'alive') throw notAlive(`adding "${intent.name}" storage to unit ${intent.unit}: unit is not alive`);
  if (unit.principal !== undefined) throw invalidArgument(`adding "${intent.name}" storage to unit ${intent.unit}: unit is a subordinate`);
  const made = newUnitStorage({
    charm: application.charm,
    directives: { [intent.name]: intent.directive },
    unit: unit.name,
    ...(unit.machine !== undefined ? { machine: unit.machine } : {}),
    numbers: intent.numbers,
    now: intent.now,
  });
  const held = unit.storageAttachments ?? [];
  return {
    changes: [
      ...made.changes,
      {
        op: 'update',
        ref: refs.unit(unit.name),
        addToSet: { storageAttachments: made.ids },
        expect: { life: 'alive', setSize: { storageAttachments: held.length } },
      },
      // The charm's counts were checked against this charm: an upgrade meanwhile re-plans.
      { op: 'check', ref: refs.application(application.name), expect: { equals: { charmUrl: application.charmUrl } } },
    ],
    result: made.ids,
  };
}

/**
 * A Dying unit's attachments go Dying with it (its agent then runs -storage-detaching for each),
 * and with `destroyStorage` its instances too, so they are destroyed rather than kept once
 * detached. `attachments` and `instances` are the unit's, as read.
 */
export function dyingStorage(attachments: StorageAttachment[], instances: StorageInstance[], destroyStorage: boolean): Change[] {
  const changes: Change[] = [];
  for (const attachment of attachments) {
    if (attachment.life !== 'alive') continue;
    changes.push({
      op: 'update',
      ref: refs.storageAttachment(attachment.storage, attachment.unit),
      set: { life: 'dying' },
      expect: { life: 'alive' },
    });
  }
  if (destroyStorage) {
    for (const instance of instances) {
      if (instance.life !== 'alive') continue;
      changes.push({ op: 'update', ref: refs.storage(instance.id), set: { life: 'dying' }, expect: { life: 'alive' } });
    }
  }
  return changes;
}

/**
 * What becomes of an instance once its last attachment is gone: a non-persistent one (rootfs,
 * the machine's own disk) has nothing left to keep, and goes; a persistent one (an EBS volume)
 * stays Alive, detached, unless it was destroyed (Dying, or its unit's removal asked for it),
 * when it goes Dead for the provisioner to delete the volume and remove it.
 */
export function releaseInstance(instance: StorageInstance, unit: string, destroy: boolean, release = false): Change {
  const others = instance.attachments.filter((u) => u !== unit);
  const expect = { life: instance.life, contains: { attachments: unit }, setSize: { attachments: instance.attachments.length } };
  if (others.length === 0 && !instance.persistent) return { op: 'remove', ref: refs.storage(instance.id), expect };
  // destroy-model --release-storage: Dead too, its record to go and its volume to stay in the cloud.
  if (others.length === 0 && (destroy || release || instance.life !== 'alive')) {
    const set = { life: 'dead', ...(release && !destroy ? { release: true } : {}) };
    return { op: 'update', ref: refs.storage(instance.id), set, removeFromSet: { attachments: [unit] }, expect };
  }
  return { op: 'update', ref: refs.storage(instance.id), removeFromSet: { attachments: [unit] }, expect };
}

export type DetachedResult = 'detached' | 'already-detached';

/**
 * The agent ran -storage-detaching for a Dying attachment: the attachment is Dead and removed in
 * one step, the unit lets go of it, and the instance goes as releaseInstance says. Sent again (the
 * answer lost), it finds the attachment gone and changes nothing.
 */
export function planStorageDetached(
  snapshot: { unit?: Unit; attachment?: StorageAttachment; instance?: StorageInstance; destroyStorage: boolean; releaseStorage?: boolean },
  intent: { unit: string; storage: string },
): Plan<DetachedResult> {
  const { unit, attachment, instance } = snapshot;
  if (!attachment) return { changes: [], result: 'already-detached' };
  if (attachment.life === 'alive') {
    throw invalidArgument(`storage ${intent.storage} attached to unit ${intent.unit} is alive: it must be Dying to be detached`);
  }
  const changes: Change[] = [{ op: 'remove', ref: refs.storageAttachment(intent.storage, intent.unit), expect: { life: attachment.life } }];
  if (unit) {
    changes.push({
      op: 'update',
      ref: refs.unit(unit.name),
      removeFromSet: { storageAttachments: [intent.storage] },
      expect: { contains: { storageAttachments: intent.storage } },
    });
  }
  if (instance) changes.push(releaseInstance(instance, intent.unit, snapshot.destroyStorage, snapshot.releaseStorage === true));
  return { changes, result: 'detached' };
}

/** storage-attached: the agent made the storage available at `location`; the same again is a no-op. */
export function planStorageAttached(
  snapshot: { attachment?: StorageAttachment },
  intent: { unit: string; storage: string; location: string },
): Plan<'attached' | 'already-attached'> {
  const { attachment } = snapshot;
  if (!attachment) throw notFound(`storage ${intent.storage} is not attached to unit ${intent.unit}`);
  if (attachment.location === intent.location) return { changes: [], result: 'already-attached' };
  return {
    changes: [
      {
        op: 'update',
        ref: refs.storageAttachment(intent.storage, intent.unit),
        set: { location: intent.location },
        expect: { life: ['alive', 'dying'] },
      },
    ],
    result: 'attached',
  };
}

/**
 * detach-storage: the instance's attachments go Dying (the agent runs -storage-detaching, then
 * storage-detached); the instance stays, detached. Only storage that can outlive its machine's
 * disk can be detached: rootfs storage is the machine's own filesystem.
 */
export function planDetachStorage(snapshot: { instance?: StorageInstance; attachments: StorageAttachment[] }, id: string): Plan<void> {
  const { instance } = snapshot;
  if (!instance) throw notFound(`storage ${id} not found`);
  if (!knownPool(instance.pool)?.detachable) {
    throw invalidArgument(`detaching storage ${id}: storage ${id} in pool "${instance.pool}" is not detachable`);
  }
  return { changes: dyingStorage(snapshot.attachments, [], false), result: undefined };
}

/**
 * remove-storage: the instance is destroyed (Dying, then Dead once detached). Attached, it needs
 * --force (its attachments go Dying with it); `release` (--no-destroy) leaves a volume in the cloud.
 */
export function planRemoveStorage(
  snapshot: { instance?: StorageInstance; attachments: StorageAttachment[] },
  intent: { id: string; force: boolean; release: boolean },
): Plan<void> {
  const { instance } = snapshot;
  if (!instance) throw notFound(`storage ${intent.id} not found`);
  const attached = instance.attachments.length > 0;
  if (attached && !intent.force) {
    throw invalidArgument(`removing storage ${intent.id}: storage is attached (detach it first, or use --force)`);
  }
  const release = intent.release ? { release: true } : {};
  if (!attached) {
    const expect = { life: instance.life, setSize: { attachments: 0 } };
    if (!instance.persistent) return { changes: [{ op: 'remove', ref: refs.storage(instance.id), expect }], result: undefined };
    return { changes: [{ op: 'update', ref: refs.storage(instance.id), set: { life: 'dead', ...release }, expect }], result: undefined };
  }
  return {
    changes: [
      ...dyingStorage(snapshot.attachments, [], false),
      {
        op: 'update',
        ref: refs.storage(instance.id),
        set: { life: 'dying', ...release },
        expect: { life: ['alive', 'dying'], setSize: { attachments: instance.attachments.length } },
      },
    ],
    result: undefined,
  };
}
