// Destroying a unit: remove-unit (the user) and the unit agent's own move to Dying.
//
// death-and-destruction.txt, "juju destroy-unit": "If the unit is not Alive, abort without
// error. Set the unit to Dying." lifecycles.txt: a principal becomes Dying via "`juju
// destroy-unit` (This doesn't work on subordinates ...)", or by its agent when it detects "its
// service's Dying state"; and "A subordinate must also become Dying when ... its principal
// becomes Dying, via `juju destroy-unit`".
import type { Application, Machine, Unit } from '../entities.js';
import { invalidArgument, notFound } from '../errors.js';
import { refs, type Change, type Plan } from '../plan.js';
import { releaseApplication, unassignFromMachine } from './references.js';
import type { StorageAttachment, StorageInstance } from '../storage.js';
import { dyingStorage, releaseInstance } from './unit-storage.js';

export type DestroyUnitResult = 'dying' | 'removed' | 'already-dying';

export interface DestroyUnitSnapshot {
  unit?: Unit;
  /** The unit's application (for the short-cut's release). */
  application?: Application;
  /** The machine the unit is assigned to, if any. */
  machine?: Machine;
  /** The units named in `unit.subordinates` that still exist. */
  subordinates: Unit[];
  /** The unit's storage attachments and their instances (those of `unit.storageAttachments` that exist). */
  storage?: { attachments: StorageAttachment[]; instances: StorageInstance[] };
}

export interface DestroyUnitIntent {
  name: string;
  /**
   * `user`: remove-unit, refused on subordinates, with the short-cut for units whose agent never
   * started. `agent`: the unit agent's own transition (its application is Dying, or it is a
   * subordinate whose principal is Dying): allowed on subordinates, never short-cut.
   */
  by: 'user' | 'agent';
  /** remove-unit --destroy-storage: its storage is destroyed once detached, not kept (persistent storage only). */
  destroyStorage?: boolean;
}

/** The agent status of a unit whose agent has not started yet. */
export const AGENT_NOT_STARTED = 'allocating';

export function planDestroyUnit(snapshot: DestroyUnitSnapshot, intent: DestroyUnitIntent): Plan<DestroyUnitResult> {
  const { unit } = snapshot;
  const { name } = intent;
  if (!unit) throw notFound(`unit "${name}" does not exist`);
  if (intent.by === 'user' && unit.principal !== undefined) {
    throw invalidArgument(
      `unit "${name}" is a subordinate, to remove use remove-relation. Note: this will remove all units of "${unit.application}"`,
    );
  }
  if (unit.life !== 'alive') return { changes: [], result: 'already-dying' };

  if (intent.by === 'user' && canShortCut(unit)) return shortCut(snapshot, unit, intent.destroyStorage === true);

  const held = unit.storageAttachments ?? [];
  const changes: Change[] = [
    {
      op: 'update',
      ref: refs.unit(name),
      set: { life: 'dying', ...(intent.destroyStorage ? { destroyStorage: true } : {}) },
      // The subordinates read are exactly those set Dying below: one created meanwhile re-plans.
      // So are its storage attachments (a storage-add meanwhile re-plans).
      expect: { life: 'alive', setSize: { subordinates: unit.subordinates.length, storageAttachments: held.length } },
    },
    // "A Dying unit makes its attachments Dying": its agent runs -storage-detaching for each.
    ...dyingStorage(snapshot.storage?.attachments ?? [], snapshot.storage?.instances ?? [], intent.destroyStorage === true),
  ];
  // "destroying a principal destroys all its subordinates" — at most one per subordinate
  // application, so this stays bounded.
  for (const sub of snapshot.subordinates) {
    if (sub.life !== 'alive' || !unit.subordinates.includes(sub.name)) continue;
    changes.push({ op: 'update', ref: refs.unit(sub.name), set: { life: 'dying' }, expect: { life: 'alive' } });
  }
  return { changes, result: 'dying' };
}

/**
 * what-we-run-and-why.txt: "a unit assigned to a machine that has not been provisioned can be
 * removed directly by calling destroy-unit". As in Juju 2.9 (state/unit.go DestroyUnitOperation,
 * https://github.com/juju/juju/blob/2.9/state/unit_test.go TestShortCircuitDestroyUnit): a
 * principal whose agent never started, with no subordinates and no relation scopes, has nothing
 * that could still need it, so it is removed at once rather than set Dying.
 */
const canShortCut = (unit: Unit) =>
  unit.principal === undefined &&
  unit.agentStatus.current === AGENT_NOT_STARTED &&
  unit.subordinates.length === 0 &&
  unit.scopes.length === 0;

function shortCut(snapshot: DestroyUnitSnapshot, unit: Unit, destroyStorage: boolean): Plan<DestroyUnitResult> {
  const changes: Change[] = [];
  // "If the unit is a principal unit, unassign the unit from its machine."
  if (unit.machine !== undefined && snapshot.machine) changes.push(unassignFromMachine(snapshot.machine, unit.name));
  changes.push({
    op: 'remove',
    ref: refs.unit(unit.name),
    // The facts that made the short-cut safe: an agent starting, or a subordinate or scope
    // appearing meanwhile, cancels it and the re-plan sets the unit Dying instead. So does an
    // assignment made meanwhile (a waiting unit getting its machine): "Principal units reference
    // machines", and that machine must not keep a reference to a removed unit.
    expect: {
      life: 'alive',
      equals: { 'agentStatus.current': AGENT_NOT_STARTED, ...(unit.machine !== undefined ? { machine: unit.machine } : {}) },
      setSize: { subordinates: 0, scopes: 0, storageAttachments: (unit.storageAttachments ?? []).length },
      ...(unit.machine === undefined ? { absent: ['machine'] } : {}),
    },
  });
  // Its storage was never attached by an agent: the attachments go with it, and each instance as
  // if detached (rootfs removed; a persistent one kept, or destroyed with --destroy-storage).
  for (const attachment of snapshot.storage?.attachments ?? []) {
    changes.push({ op: 'remove', ref: refs.storageAttachment(attachment.storage, attachment.unit), expect: { life: attachment.life } });
  }
  for (const instance of snapshot.storage?.instances ?? []) changes.push(releaseInstance(instance, unit.name, destroyStorage));
  if (snapshot.application) changes.push(releaseApplication(snapshot.application, { unit: true }));
  return { changes, result: 'removed' };
}
