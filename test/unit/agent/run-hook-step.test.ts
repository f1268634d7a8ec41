// The run-hook step's pure decisions (agent/uniter/steps/run-hook.ts): why a hook failed, the
// workload status Juju's runhook.go sets before it, and a leader's own peer-bag writes.
import { describe, expect, it } from 'vitest';
import { hookFailure, ownAppWrites, statusBeforeHook } from '../../../agent/uniter/steps/run-hook.js';
import { freshState } from '../../../agent/uniter/local-state.js';
import type { AgentView } from '../../../agent/view.js';
import type { Relation } from '#shared/domain/entities.js';

describe('the run-hook step', () => {
  it.each([
    [{ kind: 'exited', code: 0, signal: null, via: 'hook dispatching script: dispatch' }, undefined],
    [{ kind: 'missing', why: 'missing' }, undefined],
    [{ kind: 'exited', code: 2, signal: null, via: 'hook dispatching script: dispatch' }, 'exit status 2'],
    [{ kind: 'exited', code: null, signal: 'SIGKILL', via: 'explicit, bespoke hook script' }, 'signal: SIGKILL'],
    [{ kind: 'spawn-error', message: 'EACCES', via: 'explicit, bespoke hook script' }, 'cannot run hook: EACCES'],
  ] as const)('a hook that ends %j failed with %j', (result, failure) => {
    expect(hookFailure(result)).toBe(failure);
  });

  it.each([
    [{ kind: 'install' } as const, false, { current: 'maintenance', message: 'installing charm software' }],
    [{ kind: 'install' } as const, true, undefined],
    [{ kind: 'stop' } as const, true, { current: 'maintenance', message: 'stopping charm software' }],
    [{ kind: 'start' } as const, false, undefined],
    [{ kind: 'update-status' } as const, false, undefined],
  ])('before %j (charm set a status: %s) the workload shows %j', (hook, statusSet, status) => {
    expect(statusBeforeHook(hook, statusSet)).toEqual(status);
  });

  it("remembers a leader's own writes to its peer relation's application bag as seen, and no other relation's", () => {
    const peers = { key: 'db:peers', endpoints: [{ role: 'peer' }] } as unknown as Relation;
    const regular = { key: 'a:db b:db', endpoints: [{ role: 'provider' }, { role: 'requirer' }] } as unknown as Relation;
    const view = { relations: [peers, regular] } as AgentView;
    const local = {
      ...freshState(),
      relations: {
        'db:peers': { id: 1, endpoint: 'peers', members: {}, appVersion: 2 },
        'a:db b:db': { id: 2, endpoint: 'db', members: {} },
      },
    };
    const after = ownAppWrites(local, { 1: 5, 2: 7 }, view);
    expect(after.relations['db:peers']?.appVersion).toBe(5);
    expect(after.relations['a:db b:db']?.appVersion).toBeUndefined();
    expect(ownAppWrites(local, undefined, view)).toBe(local);
  });
});
