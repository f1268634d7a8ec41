// test/charms/storage on a real unit agent: its hooks run as processes and call the real hook tools
// as ops calls them (storage-list <name> --format=json, storage-get -s <id> location
// --format=json, storage-add <name>=<count>), against the agent routes of the storage contract
// (storage-attached, storage-detached, storage-add) and the unit view's `storage`, played here by a
// stub that keeps the unit's attachments as the controller would (test/support/in-process-uniter.ts).
// What it shows: the storage a unit has at install is a directory ready before data-storage-attached,
// which runs before install; storage the charm adds comes when its hook commits, and its hooks run
// once the unit has started; a Dying attachment runs its detaching hook and is then gone.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCharm } from '#shared/domain/charm.js';
import type { LeadershipView } from '#shared/domain/leadership.js';
import type { UnitStorage } from '../../../agent/storage/unit-storage.js';
import type { AgentView } from '../../../agent/view.js';
import { startInProcessUniter, type InProcessUniter } from '../../support/in-process-uniter.js';
import { waitFor } from '../../support/wait-for.js';
import { application, unit } from '../../unit/plans/relation-fixtures.js';
import { oneUnitView } from '../../unit/agent/one-unit-view.js';

const CHARM = fileURLToPath(new URL('../../charms/storage', import.meta.url));
const UNIT = 'storage/0';
const nobody: LeadershipView = { application: 'storage', holder: 'storage/1', claimable: false, settingsVersion: 0 };

/** The controller's part: the unit's attachments, changed by the storage routes as the contract says. */
class StorageStub {
  storage: UnitStorage[] = [{ id: 'data/0', name: 'data', kind: 'filesystem', pool: 'rootfs', size: 1024, life: 'alive' }];
  config = { 'add-logs': 0 };
  configVersion = 1;
  private next = 1;
  private readonly app = application('mysql', {
    name: 'storage',
    charmUrl: 'local:jammy/storage-0',
    charm: parseCharm(readFileSync(join(CHARM, 'metadata.yaml'), 'utf8'), readFileSync(join(CHARM, 'config.yaml'), 'utf8')),
  });

  view(): AgentView {
    const view = oneUnitView(nobody);
    const app = { ...this.app, config: this.config, configVersion: this.configVersion };
    return { ...view, applications: [app], units: [{ ...unit(UNIT, { charmUrl: app.charmUrl }), storage: this.storage } as never] };
  }

  answer(op: string, body: unknown): unknown {
    const request = body as { storage: string; location?: string; name: string; count: number };
    if (op === 'storage-attached')
      this.storage = this.storage.map((s) => (s.id === request.storage ? { ...s, location: request.location! } : s));
    if (op === 'storage-detached') this.storage = this.storage.filter((s) => s.id !== request.storage);
    if (op === 'storage-add')
      for (let i = 0; i < request.count; i++) {
        const id = `${request.name}/${this.next++}`;
        this.storage = [...this.storage, { id, name: request.name, kind: 'filesystem', pool: 'rootfs', size: 1024, life: 'alive' }];
      }
    return undefined;
  }
}

let agent: InProcessUniter | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

const unitDir = (a: InProcessUniter) => join(a.machineDir, 'unit');
const hookLog = (a: InProcessUniter) => {
  const path = join(unitDir(a), 'hook-log');
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : [];
};
const recordOf = (a: InProcessUniter, hook: string) => readFileSync(join(unitDir(a), `tools-${hook}`), 'utf8');

/** The hook log once `hook` has run `times` times, the agent's fake clock moved on meanwhile. */
async function afterHook(a: InProcessUniter, hook: string, times = 1): Promise<string[]> {
  return waitFor(
    `${hook} to have run ${times} time(s)`,
    async () => {
      await a.clock.advance(0);
      return hookLog(a);
    },
    (log) => log.filter((line) => line.startsWith(`hook=${hook} `)).length >= times,
  );
}

describe('test/charms/storage on a unit agent', () => {
  it('attaches its storage before install, adds storage when asked, and detaches a Dying attachment', async () => {
    const stub = new StorageStub();
    agent = startInProcessUniter({
      unitName: UNIT,
      deployedCharmUrl: 'local:jammy/storage-0',
      view: () => stub.view(),
      answer: (op, body) => stub.answer(op, body),
      charm: CHARM,
    });
    const data0 = join(agent.machineDir, 'storage', 'data', '0');

    const started = await afterHook(agent, 'start');
    expect(started).toEqual([
      `hook=data-storage-attached storage=data/0 location=${data0} kind=filesystem`,
      'hook=install storage= location= kind=',
      'hook=config-changed storage= location= kind=',
      'hook=start storage= location= kind=',
    ]);
    expect(recordOf(agent, 'install')).toBe(
      [
        '== storage-list data --format=json rc=0',
        '["data/0"]',
        '== storage-get -s data/0 location --format=json rc=0',
        JSON.stringify(data0),
        '',
      ].join('\n'),
    );
    expect(recordOf(agent, 'data-storage-attached')).toContain(
      `== storage-get --format=json rc=0\n${JSON.stringify({ kind: 'filesystem', location: data0 })}\n== storage-get location rc=0\n${data0}\n`,
    );
    expect(readFileSync(join(data0, 'installed-by'), 'utf8')).toBe('installed\n');
    expect(existsSync(join(data0, 'attached'))).toBe(true);

    // The charm asks for two `logs` (config-changed: storage-add logs=2); the controller's change reaches the agent.
    stub.config = { 'add-logs': 2 };
    stub.configVersion = 2;
    await agent.view.refresh();
    agent.uniter.poke();
    await afterHook(agent, 'config-changed', 2);
    expect(recordOf(agent, 'config-changed')).toBe('== storage-add logs=2 rc=0\n');
    await waitFor(
      'the storage-add calls',
      () => agent!.calls.filter((c) => c.op === 'storage-add').map((c) => c.body),
      (b) => b.length > 0,
    );
    expect(agent.calls.filter((c) => c.op === 'storage-add').map((c) => c.body)).toEqual([{ unit: UNIT, name: 'logs', count: 2 }]);
    await agent.view.refresh();
    agent.uniter.poke();
    const added = await afterHook(agent, 'logs-storage-attached', 2);
    expect(added.filter((l) => l.startsWith('hook=logs-'))).toEqual([
      `hook=logs-storage-attached storage=logs/1 location=${join(agent.machineDir, 'storage', 'logs', '1')} kind=filesystem`,
      `hook=logs-storage-attached storage=logs/2 location=${join(agent.machineDir, 'storage', 'logs', '2')} kind=filesystem`,
    ]);

    // data/0 detached (Dying): its detaching hook still sees it, then it is gone.
    stub.storage = stub.storage.map((s) => (s.id === 'data/0' ? { ...s, life: 'dying' } : s));
    await agent.view.refresh();
    agent.uniter.poke();
    await afterHook(agent, 'data-storage-detaching');
    expect(recordOf(agent, 'data-storage-detaching')).toContain('== storage-list data --format=json rc=0\n["data/0"]\n');
    await waitFor(
      'data/0 detached',
      () => stub.storage.map((s) => s.id),
      (ids) => !ids.includes('data/0'),
    );
    expect(agent.calls.filter((c) => c.op === 'storage-detached').map((c) => c.body)).toEqual([{ unit: UNIT, storage: 'data/0' }]);
  }, 60_000);
});
