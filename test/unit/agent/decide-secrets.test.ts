// Where the secret hooks go in the unit agent's decision (agent/uniter/decide.ts), as Juju 3.6's
// uniter resolver orders its resolvers (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/resolver.go):
// leadership, then secrets, then actions and everything else; never before install, once Dying,
// or while a hook is in error.
import { describe, expect, it } from 'vitest';
import type { Unit } from '#shared/domain/entities.js';
import { nextStep, type RemoteState } from '../../../agent/uniter/decide.js';
import { freshState, type LocalState } from '../../../agent/uniter/local-state.js';
import type { SecretHook } from '../../../agent/uniter/hooks.js';
import { application, unit } from '../plans/relation-fixtures.js';

const app = application('wordpress', { configVersion: 3 });
const changed: SecretHook = { kind: 'secret-changed', uri: 'secret:cu5ff0d8kgbs73a1opb0', label: 'db', revision: 2 };

const running = (fields: Partial<LocalState> = {}): LocalState => ({
  ...freshState(),
  charmUrl: app.charmUrl,
  installed: true,
  configVersion: 3,
  started: true,
  ...fields,
});
const remote = (u: Partial<Unit> = {}, fields: Partial<RemoteState> = {}): RemoteState => ({
  unit: unit('wordpress/0', { charmUrl: app.charmUrl, ...u }),
  application: app,
  relations: [],
  members: {},
  secretHook: changed,
  ...fields,
});

describe('secret hooks in the unit agent’s decision', () => {
  const cases: [string, LocalState, RemoteState, ReturnType<typeof nextStep>][] = [
    ['a due secret hook runs when the unit is otherwise idle', running(), remote(), { kind: 'run-hook', hook: changed }],
    ['none due: idle', running(), remote({}, { secretHook: undefined }), { kind: 'wait', why: 'idle' }],
    [
      'before a queued action (Juju: secrets, then actions)',
      running(),
      remote({ pendingTasks: ['4'] }),
      { kind: 'run-hook', hook: changed },
    ],
    [
      'after leader-elected (Juju: leadership, then secrets)',
      running(),
      remote({}, { leadership: { application: 'wordpress', holder: 'wordpress/0', claimable: false, settingsVersion: 1 } }),
      { kind: 'run-hook', hook: { kind: 'leader-elected', leaderSettingsVersion: 1 } },
    ],
    [
      'before config-changed, once installed (Juju: secrets before the unit hooks)',
      running({ configVersion: 2 }),
      remote(),
      { kind: 'run-hook', hook: changed },
    ],
    ['not before install', { ...freshState(), charmUrl: app.charmUrl }, remote(), { kind: 'run-hook', hook: { kind: 'install' } }],
    ['not while a hook is in error', running({ error: { kind: 'start' } }), remote(), { kind: 'wait', why: 'error' }],
    ['not once Dying', running(), remote({ life: 'dying' }), { kind: 'run-hook', hook: { kind: 'stop' } }],
  ];
  it.each(cases)('%s', (_name, local, remoteState, expected) => {
    expect(nextStep(local, remoteState)).toEqual(expected);
  });
});
