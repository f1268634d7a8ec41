// A real unit agent with storage (test/support/in-process-uniter.ts), against a stub of the
// storage contract's agent routes: the storage a unit has at install is made ready on the machine
// (a directory, 0755, under the local machine's storage directory) and reported attached before
// its storage-attached hook, which runs before install with JUJU_STORAGE_ID; a Dying attachment
// runs storage-detaching and then is reported detached; a unit agent restarted between those two
// steps does not run the hook again.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeadershipView } from '#shared/domain/leadership.js';
import type { UnitStorage } from '../../../agent/storage/unit-storage.js';
import { MachineStorage, StorageNotReady } from '../../../agent/storage/machine-storage.js';
import { startInProcessUniter, type InProcessUniter } from '../../support/in-process-uniter.js';
import { app, oneUnitView, UNIT } from './one-unit-view.js';

const follower: LeadershipView = { application: 'mysql', holder: 'mysql/1', claimable: false, settingsVersion: 0 };

let agent: InProcessUniter | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

/** The controller's side of the storage routes, as the contract has it, over the unit's attachments. */
function storageController(initial: UnitStorage[]) {
  let storage = initial;
  return {
    get storage() {
      return storage;
    },
    set storage(next: UnitStorage[]) {
      storage = next;
    },
    view() {
      const view = oneUnitView(follower);
      view.units = view.units.map((u) => ({ ...u, storage }));
      return view;
    },
    answer(op: string, body: unknown) {
      const { storage: id, location } = body as { storage: string; location?: string };
      if (op === 'storage-attached') storage = storage.map((s) => (s.id === id ? { ...s, location: location! } : s));
      if (op === 'storage-detached') storage = storage.filter((s) => s.id !== id);
      return undefined;
    },
  };
}

const data0: UnitStorage = { id: 'data/0', name: 'data', kind: 'filesystem', pool: 'rootfs', size: 1024, life: 'alive' };
const names = (a: InProcessUniter) => a.hooks.map((h) => h.name);
const storageCalls = (a: InProcessUniter) => a.calls.filter((c) => c.op.startsWith('storage-')).map((c) => [c.op, c.body]);

describe('a unit agent with storage', () => {
  it('makes its install-time storage ready and runs storage-attached before install, with JUJU_STORAGE_*', async () => {
    const controller = storageController([data0]);
    agent = startInProcessUniter({
      unitName: UNIT,
      deployedCharmUrl: app.charmUrl,
      view: () => controller.view(),
      answer: (op, b) => controller.answer(op, b),
    });
    await agent.clock.advance(0);
    const location = join(agent.machineDir, 'storage', 'data', '0');
    expect(names(agent).slice(0, 2)).toEqual(['data-storage-attached', 'install']);
    expect(storageCalls(agent)).toEqual([['storage-attached', { unit: UNIT, storage: 'data/0', location }]]);
    expect(statSync(location).isDirectory()).toBe(true);
    expect(statSync(location).mode & 0o777).toBe(0o755);
    const env = agent.hooks[0]!.env;
    expect([env.JUJU_STORAGE_ID, env.JUJU_STORAGE_LOCATION, env.JUJU_STORAGE_KIND]).toEqual(['data/0', location, 'filesystem']);
    expect(agent.hooks[1]!.env.JUJU_STORAGE_ID).toBeUndefined();
  });

  it('runs storage-detaching for a Dying attachment, then reports it detached; restarted between the two, it only reports', async () => {
    const controller = storageController([data0]);
    // The agent dies when it first tells the controller: after its storage-detaching hook ran.
    let dieOnDetached = true;
    const answer = (op: string, body: unknown) => {
      if (op === 'storage-detached' && dieOnDetached) {
        dieOnDetached = false;
        throw new Error('the agent was killed');
      }
      return controller.answer(op, body);
    };
    const first = startInProcessUniter({ unitName: UNIT, deployedCharmUrl: app.charmUrl, view: () => controller.view(), answer });
    await first.clock.advance(0);
    expect(names(first)).toContain('start');
    controller.storage = controller.storage.map((s) => ({ ...s, life: 'dying' }));
    await first.view.refresh();
    first.uniter.poke();
    await first.clock.advance(0);
    await expect(first.stop()).rejects.toThrow('the agent was killed');
    expect(names(first).filter((n) => n.startsWith('data-'))).toEqual(['data-storage-attached', 'data-storage-detaching']);

    agent = startInProcessUniter({
      unitName: UNIT,
      deployedCharmUrl: app.charmUrl,
      view: () => controller.view(),
      answer,
      machineDir: first.machineDir,
      clock: first.clock,
    });
    await agent.clock.advance(0);
    expect(names(agent).filter((n) => n.startsWith('data-'))).toEqual([]);
    expect(storageCalls(agent)).toEqual([['storage-detached', { unit: UNIT, storage: 'data/0' }]]);
    expect(controller.storage).toEqual([]);
  });

  it('storage it cannot make ready yet holds install back, and is tried again later, the unit agent running on', async () => {
    const controller = storageController([data0]);
    const failures = [
      new StorageNotReady('storage data/0: its volume has not appeared on the machine yet'),
      new Error('mount: permission denied'),
    ];
    const machineStorage = {
      async prepare() {
        const failure = failures.shift();
        if (failure) throw failure;
        return '/srv/data';
      },
      async release() {},
    } as unknown as MachineStorage;
    agent = startInProcessUniter({
      unitName: UNIT,
      deployedCharmUrl: app.charmUrl,
      view: () => controller.view(),
      answer: (op, b) => controller.answer(op, b),
      machineStorage,
    });
    await agent.clock.advance(0);
    expect(names(agent)).toEqual([]);
    await agent.clock.advance(5_000); // not ready: looked at again after 5 s, and failing, after 30 s
    expect(names(agent)).toEqual([]);
    expect(storageCalls(agent)).toEqual([]);
    await agent.clock.advance(29_000);
    expect(names(agent)).toEqual([]);
    await agent.clock.advance(1_000);
    expect(names(agent).slice(0, 2)).toEqual(['data-storage-attached', 'install']);
    expect(storageCalls(agent)).toEqual([['storage-attached', { unit: UNIT, storage: 'data/0', location: '/srv/data' }]]);
  });
});
