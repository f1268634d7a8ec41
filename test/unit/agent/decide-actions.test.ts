// When the unit agent runs queued tasks (agent/uniter/decide.ts): between hooks, oldest first,
// never before install, also in a hook error state, and a task interrupted by the agent's death
// is failed, never run again.
import { describe, expect, it } from 'vitest';
import { nextStep, type RemoteState } from '../../../agent/uniter/decide.js';
import { freshState, type LocalState } from '../../../agent/uniter/local-state.js';
import type { Unit } from '#shared/domain/entities.js';
import { application, unit } from '../plans/relation-fixtures.js';

const app = application('mysql', { configVersion: 1 });
const running = (fields: Partial<LocalState> = {}): LocalState => ({
  ...freshState(),
  charmUrl: app.charmUrl,
  installed: true,
  configVersion: 1,
  started: true,
  ...fields,
});
const remote = (u: Partial<Unit> = {}): RemoteState => ({
  unit: unit('mysql/0', { charmUrl: app.charmUrl, ...u }),
  application: app,
  relations: [],
  members: {},
});

describe('queued tasks', () => {
  it('run one at a time, lowest id first (ids are numbers, not strings)', () => {
    expect(nextStep(running(), remote({ pendingTasks: ['10', '9'] }))).toEqual({ kind: 'run-action', task: '9' });
    expect(nextStep(running(), remote({ pendingTasks: [] }))).toEqual({ kind: 'wait', why: 'idle' });
  });

  it('go before hooks still owed, but never before install', () => {
    expect(nextStep(running({ configVersion: 0 }), remote({ pendingTasks: ['2'] }))).toEqual({ kind: 'run-action', task: '2' });
    const fresh = { ...freshState(), charmUrl: app.charmUrl };
    expect(nextStep(fresh, remote({ pendingTasks: ['2'] }))).toMatchObject({ kind: 'run-hook', hook: { kind: 'install' } });
  });

  it('run in a hook error state, which stays: "We can still run actions if the unit is in a hook error state"', () => {
    const failed = running({ error: { kind: 'config-changed', configVersion: 1 } });
    expect(nextStep(failed, remote({ pendingTasks: ['4'] }))).toEqual({ kind: 'run-action', task: '4' });
    expect(nextStep(failed, remote())).toEqual({ kind: 'wait', why: 'error' });
    // resolved still comes first
    expect(nextStep(failed, remote({ pendingTasks: ['4'], resolved: 'retry-hooks' }))).toMatchObject({ kind: 'retry-hook' });
  });

  it('a task the agent was running when it stopped is failed first, never run again', () => {
    expect(nextStep(running({ actionInFlight: '4' }), remote({ pendingTasks: ['4', '6'] }))).toEqual({
      kind: 'fail-interrupted-action',
      task: '4',
    });
  });
});
