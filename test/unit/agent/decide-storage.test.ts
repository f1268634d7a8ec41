// Where the storage steps go in the unit agent's decision (agent/uniter/decide.ts with
// decide-storage.ts), as Juju 3.6's storage resolver has them
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/storage/resolver.go): the storage
// a unit has at install attached (and its hooks run) before install, later storage once the unit
// has started, a Dying unit's storage detached before its relations and stop; and state.json
// remembers each step, so an agent killed between two neither skips nor repeats a hook.
import { describe, expect, it } from 'vitest';
import type { Unit } from '#shared/domain/entities.js';
import { nextStep, type RemoteState } from '../../../agent/uniter/decide.js';
import { afterHook, freshState, withStorage, type LocalState } from '../../../agent/uniter/local-state.js';
import type { UnitStorage } from '../../../agent/storage/unit-storage.js';
import { application, unit } from '../plans/relation-fixtures.js';

const app = application('wordpress', { configVersion: 3 });

const deployed = (fields: Partial<LocalState> = {}): LocalState => ({ ...freshState(), charmUrl: app.charmUrl, ...fields });
const running = (fields: Partial<LocalState> = {}): LocalState => deployed({ installed: true, configVersion: 3, started: true, ...fields });

const rootfs = (id: string, fields: Partial<UnitStorage> = {}): UnitStorage => ({
  id,
  name: id.split('/')[0]!,
  kind: 'filesystem',
  pool: 'rootfs',
  size: 1024,
  life: 'alive',
  ...fields,
});
const at = (id: string) => `/m/storage/${id}`;
const ready = (id: string, fields: Partial<UnitStorage> = {}) => rootfs(id, { location: at(id), ...fields });
const volume = (id: string, device?: string): UnitStorage =>
  rootfs(id, { pool: 'ebs', volume: { volumeId: 'vol-0abc', ...(device ? { device } : {}) } });

function remote(storage: UnitStorage[], u: Partial<Unit> = {}): RemoteState {
  return {
    unit: { ...unit('wordpress/0', { charmUrl: app.charmUrl, ...u }), storage } as Unit,
    application: app,
    relations: [],
    members: {},
  };
}

const attached = (...ids: string[]) => ids.reduce((s, id) => withStorage(s, id, 'attached'), running());
const hook = (kind: 'storage-attached' | 'storage-detaching', storage: string) => ({ kind: 'run-hook' as const, hook: { kind, storage } });

describe('storage in the unit agent’s decision', () => {
  const cases: [string, LocalState, RemoteState, ReturnType<typeof nextStep>][] = [
    [
      'storage not yet ready at install is made ready first',
      deployed(),
      remote([rootfs('data/0')]),
      { kind: 'attach-storage', storage: rootfs('data/0') },
    ],
    ['ready storage runs storage-attached before install', deployed(), remote([ready('data/0')]), hook('storage-attached', 'data/0')],
    [
      'install waits for a volume not yet attached to the instance, after the hooks of what is ready',
      deployed(),
      remote([volume('disk/1'), ready('data/0')]),
      hook('storage-attached', 'data/0'),
    ],
    [
      '…and then waits for it',
      withStorage(deployed(), 'data/0', 'attached'),
      remote([volume('disk/1'), ready('data/0', {})]),
      { kind: 'wait', why: 'storage' },
    ],
    [
      'a volume attached to the instance is made ready',
      deployed(),
      remote([volume('disk/1', '/dev/sdf')]),
      { kind: 'attach-storage', storage: volume('disk/1', '/dev/sdf') },
    ],
    [
      'install once every storage-attached hook has run',
      withStorage(deployed(), 'data/0', 'attached'),
      remote([ready('data/0')]),
      { kind: 'run-hook', hook: { kind: 'install' } },
    ],
    ['no install-time storage: install at once', deployed(), remote([]), { kind: 'run-hook', hook: { kind: 'install' } }],
    [
      'storage added later waits for the initial hooks: config-changed first',
      deployed({ installed: true }),
      remote([ready('data/1')]),
      { kind: 'run-hook', hook: { kind: 'config-changed', configVersion: 3 } },
    ],
    ['storage added later runs storage-attached once started', running(), remote([ready('data/1')]), hook('storage-attached', 'data/1')],
    ['…and waits for nothing while not ready: idle', running(), remote([volume('disk/1')]), { kind: 'wait', why: 'idle' }],
    ['attached storage needs nothing', attached('data/0'), remote([ready('data/0')]), { kind: 'wait', why: 'idle' }],
    [
      'a Dying attachment runs storage-detaching',
      attached('data/0'),
      remote([ready('data/0', { life: 'dying' })]),
      hook('storage-detaching', 'data/0'),
    ],
    [
      'after storage-detaching the controller is told',
      withStorage(running(), 'data/0', 'detaching'),
      remote([ready('data/0', { life: 'dying' })]),
      { kind: 'detach-storage', storage: ready('data/0', { life: 'dying' }) },
    ],
    [
      'a Dying attachment whose storage-attached never ran is detached without a hook',
      running(),
      remote([ready('data/0', { life: 'dying' })]),
      { kind: 'detach-storage', storage: ready('data/0', { life: 'dying' }) },
    ],
    [
      'once told, it waits for the attachment to go',
      withStorage(running(), 'data/0', 'detached'),
      remote([ready('data/0', { life: 'dying' })]),
      { kind: 'wait', why: 'idle' },
    ],
    [
      'an attachment gone from the view is forgotten',
      withStorage(running(), 'data/0', 'detached'),
      remote([]),
      { kind: 'forget-storage', storage: 'data/0' },
    ],
    [
      '…and so is a Dead one',
      attached('data/0'),
      remote([ready('data/0', { life: 'dead' })]),
      { kind: 'forget-storage', storage: 'data/0' },
    ],
    [
      'a Dying unit detaches all its storage before its stop hook',
      attached('data/0'),
      remote([ready('data/0')], { life: 'dying' }),
      hook('storage-detaching', 'data/0'),
    ],
    [
      '…then stops',
      withStorage(running(), 'data/0', 'detached'),
      remote([ready('data/0', { life: 'dying' })], { life: 'dying' }),
      { kind: 'run-hook', hook: { kind: 'stop' } },
    ],
    [
      'a hook in error holds the storage hooks too',
      running({ error: { kind: 'update-status' } }),
      remote([ready('data/1')]),
      { kind: 'wait', why: 'error' },
    ],
  ];
  for (const [name, local, state, step] of cases) it(name, () => expect(nextStep(local, state)).toEqual(step));

  it('remembers each hook as it completes: an agent restarted between two steps goes on from the next', () => {
    const detaching = remote([ready('data/0', { life: 'dying' })]);
    const afterAttached = afterHook(deployed(), { kind: 'storage-attached', storage: 'data/0' });
    expect(afterAttached.storage).toEqual({ 'data/0': 'attached' });
    expect(nextStep(afterAttached, remote([ready('data/0')]))).toEqual({ kind: 'run-hook', hook: { kind: 'install' } });
    const afterDetaching = afterHook(attached('data/0'), { kind: 'storage-detaching', storage: 'data/0' });
    expect(afterDetaching.storage).toEqual({ 'data/0': 'detaching' });
    // Not the hook again: only the report it owes.
    expect(nextStep(afterDetaching, detaching).kind).toBe('detach-storage');
  });
});
