import { describe, expect, it } from 'vitest';
import { DroverError } from '#shared/domain/errors.js';
import { planDestroyMachine } from '#shared/domain/plans/destroy-machine.js';
import type { Machine } from '#shared/domain/entities.js';
import { machine } from './destruction-fixtures.js';

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DroverError ? [e.code, e.message] : e;
  }
  return undefined;
};

describe('planDestroyMachine', () => {
  it('sets an Alive machine with no principals Dying, asserting it has none', () => {
    expect(planDestroyMachine({ machine: machine('1') }, { id: '1' })).toEqual({
      changes: [
        { op: 'update', ref: { kind: 'machine', id: '1' }, set: { life: 'dying' }, expect: { life: 'alive', setSize: { principals: 0 } } },
      ],
      result: 'dying',
    });
  });

  it.each(['dying', 'dead'] as const)('"If the machine is not Alive, abort without error" (%s)', (life) => {
    expect(planDestroyMachine({ machine: machine('1', { life }) }, { id: '1' })).toEqual({ changes: [], result: 'already-dying' });
  });

  it.each([
    ['an unknown machine', {}, ['not-found', 'machine 9 not found']],
    [
      '"While principal units are assigned to a machine ... juju destroy-machine will fail"',
      { machine: machine('9', { principals: ['wordpress/0', 'mysql/1'] }) },
      ['has-assignments', 'machine 9 has unit "wordpress/0" assigned'],
    ],
  ])('refuses %s', (_, snapshot: { machine?: Machine }, expected) => {
    expect(codeOf(() => planDestroyMachine(snapshot, { id: '9' }))).toEqual(expected);
  });
});
