// `--force` for units, machines and applications: lifecycles.txt's "future plans" ("a --force flag to
// destroy-unit (and destroy-machine?) that forcibly sets an entity to Dead while maintaining
// consistency and sanity across all references"), as Juju 2.6+ has it. Each step is one of the
// ordinary transactions, so every reference and count stays consistent, and each is idempotent,
// so a cleanup that dies half-way just runs again.
import type { CleanupKind } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import { cleanupId, planScheduleForce } from '../../domain/plans/cleanups.js';
import { destroyApplication } from './destroy-application.js';
import { destroyMachine } from './destroy-machine.js';
import { destroyUnit, destroyUnitByAgent } from './destroy-unit.js';
import { leaveScope } from './leave-scope.js';
import { ensureMachineDead } from './machine-dead.js';
import { getApplication, getCleanup, getMachine, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import { removeMachine } from './remove-machine.js';
import { removeUnit } from './remove-unit.js';
import type { Store } from '../engine/store.js';
import { ensureUnitDead } from './unit-dead.js';
import { storageDetached } from './unit-storage.js';

/** Takes a unit all the way to removed, whatever its agent is doing: subordinates first, then scopes. */
export async function forceRemoveUnit(store: Store, name: string): Promise<void> {
  const unit = await getUnit(store, name);
  if (!unit) return;
  if (unit.life === 'alive') await destroyUnitByAgent(store, name);
  for (const subordinate of unit.subordinates) await forceRemoveUnit(store, subordinate);
  for (const relation of unit.scopes) await leaveScope(store, name, relation);
  // Dying with the unit, its attachments are let go of as its agent would after -storage-detaching.
  for (const storage of (await getUnit(store, name))?.storageAttachments ?? []) await storageDetached(store, name, storage);
  await ensureUnitDead(store, name);
  await removeUnit(store, name);
}

/**
 * Removes every unit on a machine and sets it Dead. A machine with an instance is left Dead for
 * the provisioner, which stops the instance and removes it (a stray the reconcile would reap
 * otherwise); one never provisioned is removed here.
 */
export async function forceRemoveMachine(store: Store, id: string): Promise<void> {
  const machine = await getMachine(store, id);
  if (!machine) return;
  for (const unit of machine.principals) await forceRemoveUnit(store, unit);
  if (machine.life === 'alive') await destroyMachine(store, id);
  await ensureMachineDead(store, id);
  if (!(await getMachine(store, id))?.instanceId) await removeMachine(store, id);
}

/** Schedules a force cleanup; forcing twice is harmless (the second finds it scheduled). */
async function scheduleForce(store: Store, kind: CleanupKind, target: string, incarnation?: string): Promise<void> {
  await runOperation(store, `cannot force removal of ${target}`, async (store) =>
    planScheduleForce(await getCleanup(store, cleanupId(kind, target, incarnation)), kind, target, store.now().toISOString(), incarnation),
  );
}

/** `remove-unit --force`: Dying now (with the usual checks), then removed by the cleanup. */
export async function forceDestroyUnit(store: Store, name: string, options: { destroyStorage?: boolean } = {}): Promise<void> {
  await destroyUnit(store, name, options);
  if (await getUnit(store, name)) await scheduleForce(store, 'forceDestroyUnit', name);
}

/** `remove-machine --force`: removes the machine's units too, which plain remove-machine refuses. */
export async function forceDestroyMachine(store: Store, id: string): Promise<void> {
  if (!(await getMachine(store, id))) throw notFound(`machine ${id} not found`);
  await scheduleForce(store, 'forceDestroyMachine', id);
}

/** `remove-application --force`: destroys it as usual, then forces each of its units out. */
export async function forceDestroyApplication(store: Store, name: string, options: { destroyStorage?: boolean } = {}): Promise<void> {
  const application = await getApplication(store, name);
  await destroyApplication(store, name, options);
  // The incarnation (creation time) keeps the cleanup off an application deployed again under
  // the same name after this one is gone.
  const still = await getApplication(store, name);
  if (still && still.createdAt === application?.createdAt) await scheduleForce(store, 'forceDestroyApplication', name, still.createdAt);
}
