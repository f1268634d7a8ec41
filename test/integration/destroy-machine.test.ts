import { beforeEach, describe, expect, it } from 'vitest';
import { expectRefusedUnchanged } from '../support/expect-refused.js';
import type { ErrorCode } from '#shared/domain/errors.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { ensureMachineDead } from '#shared/state/operations/machine-dead.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { removeMachine } from '#shared/state/operations/remove-machine.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

/** Expects `op` to fail with exactly `message` (and `code`), leaving every item as it was. */
const expectRefused = (op: () => Promise<unknown>, message: string, code?: ErrorCode) => expectRefusedUnchanged(store, op, message, code);

describe('destroy-machine', () => {
  it('refuses a machine that does not exist', async () => {
    await expectRefused(() => destroyMachine(store, '9'), 'machine 9 not found', 'not-found');
  });

  it('"While principal units are assigned to a machine, its lifecycle cannot change and `juju destroy-machine` will fail"', async () => {
    await deploy(store, { charm: charms.wordpress });
    await expectRefused(() => destroyMachine(store, '0'), 'machine 0 has unit "wordpress/0" assigned', 'has-assignments');
  });

  it('"When no principal units are assigned, `juju destroy-machine` will set the machine to Dying"', async () => {
    const [id] = await addMachines(store);
    expect(await destroyMachine(store, id!)).toBe('dying');
    expect((await getMachine(store, id!))?.life).toBe('dying');
  });

  it('a machine whose last unit was removed is already Dying (Juju 2.x host fast-forward), so destroying it is a no-op', async () => {
    await deploy(store, { charm: charms.wordpress });
    await destroyUnit(store, 'wordpress/0');
    expect(await destroyMachine(store, '0')).toBe('already-dying');
  });

  it('a machine that keeps another unit stays Alive when one of its units is removed', async () => {
    const [id] = await addMachines(store);
    await deploy(store, { charm: charms.wordpress, to: [id!] });
    await deploy(store, { charm: charms.mysql, to: [id!] });
    await destroyUnit(store, 'wordpress/0');
    expect(await destroyMachine(store, id!).catch((e: Error) => e.message)).toBe(`machine ${id} has unit "mysql/0" assigned`);
  });

  it('"If the machine is not Alive, abort without error": destroying it again is a no-op', async () => {
    const [id] = await addMachines(store);
    await destroyMachine(store, id!);
    const before = await dumpTable(store);
    expect(await destroyMachine(store, id!)).toBe('already-dying');
    expect(await dumpTable(store)).toEqual(before);
  });
});

describe('machine death and removal', () => {
  it('Dying → Dead (the machine agent) → removed (the provisioner)', async () => {
    const [id] = await addMachines(store);
    await destroyMachine(store, id!);
    expect(await ensureMachineDead(store, id!)).toBe('dead');
    expect((await getMachine(store, id!))?.life).toBe('dead');
    expect(await removeMachine(store, id!)).toEqual({ removed: true });
    expect(await getMachine(store, id!)).toBeUndefined();
  });

  it('"Once a machine has been set to Dying, the corresponding Machine Agent (MA) is responsible for setting it to Dead": not before', async () => {
    const [id] = await addMachines(store);
    await expectRefused(() => ensureMachineDead(store, id!), `machine ${id} is not dying`, 'invalid-argument');
  });

  it.each(['alive', 'dying'])('"If the machine is not Dead, abort with an appropriate error" (%s)', async (life) => {
    const [id] = await addMachines(store);
    if (life === 'dying') await destroyMachine(store, id!);
    await expectRefused(() => removeMachine(store, id!), `cannot remove machine ${id}: machine is not dead`, 'not-dead');
  });

  it('setting a Dead machine Dead, or removing a removed one, is a no-op', async () => {
    const [id] = await addMachines(store);
    await destroyMachine(store, id!);
    await ensureMachineDead(store, id!);
    expect(await ensureMachineDead(store, id!)).toBe('already-dead');
    await removeMachine(store, id!);
    expect(await removeMachine(store, id!)).toEqual({ removed: false });
    expect(await ensureMachineDead(store, id!)).toBe('already-dead');
  });
});
