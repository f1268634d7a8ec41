import { describe, expect, it } from 'vitest';
import { DroverError } from '#shared/domain/errors.js';
import { planEnsureMachineDead } from '#shared/domain/plans/machine-dead.js';
import { machine } from './destruction-fixtures.js';

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DroverError ? [e.code, e.message] : e;
  }
  return undefined;
};

describe('planEnsureMachineDead', () => {
  it('sets a Dying machine Dead', () => {
    expect(planEnsureMachineDead({ machine: machine('1', { life: 'dying' }) }, { id: '1' })).toEqual({
      changes: [
        { op: 'update', ref: { kind: 'machine', id: '1' }, set: { life: 'dead' }, expect: { life: 'dying', setSize: { principals: 0 } } },
      ],
      result: 'dead',
    });
  });

  it.each([
    ['an Alive machine', machine('1'), ['invalid-argument', 'machine 1 is not dying']],
    [
      'a machine with principals',
      machine('1', { life: 'dying', principals: ['wordpress/0'] }),
      ['has-assignments', 'machine 1 has unit "wordpress/0" assigned'],
    ],
  ])('refuses %s', (_, m, expected) => {
    expect(codeOf(() => planEnsureMachineDead({ machine: m }, { id: '1' }))).toEqual(expected);
  });

  it('a Dead or removed machine is left as it is', () => {
    expect(planEnsureMachineDead({ machine: machine('1', { life: 'dead' }) }, { id: '1' }).changes).toEqual([]);
    expect(planEnsureMachineDead({}, { id: '1' }).changes).toEqual([]);
  });
});
