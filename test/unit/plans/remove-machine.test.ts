import { describe, expect, it } from 'vitest';
import { DroverError } from '#shared/domain/errors.js';
import { planRemoveMachine } from '#shared/domain/plans/remove-machine.js';
import { machine } from './destruction-fixtures.js';

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DroverError ? [e.code, e.message] : e;
  }
  return undefined;
};

describe('planRemoveMachine', () => {
  it('"If the machine is not Dead, abort with an appropriate error"', () => {
    expect(codeOf(() => planRemoveMachine({ machine: machine('1', { life: 'dying' }) }, { id: '1' }))).toEqual([
      'not-dead',
      'cannot remove machine 1: machine is not dead',
    ]);
  });

  it('"Delete the machine document", asserting it is Dead; a removed machine is left as it is', () => {
    expect(planRemoveMachine({ machine: machine('1', { life: 'dead' }) }, { id: '1' }).changes).toEqual([
      { op: 'remove', ref: { kind: 'machine', id: '1' }, expect: { life: 'dead' } },
    ]);
    expect(planRemoveMachine({}, { id: '1' })).toEqual({ changes: [], result: { removed: false } });
  });
});
