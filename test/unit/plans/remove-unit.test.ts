import { describe, expect, it } from 'vitest';
import { planRemoveUnit } from '#shared/domain/plans/remove-unit.js';
import { app, machine, unit } from './destruction-fixtures.js';

const NOW = '2025-01-01T00:00:00.000Z';

describe('planRemoveUnit', () => {
  it('refuses a unit that is not Dead', () => {
    expect(() => planRemoveUnit({ unit: unit('wordpress/0', { life: 'dying' }) }, { name: 'wordpress/0', now: NOW })).toThrow(
      'cannot remove unit "wordpress/0": unit is not dead',
    );
  });

  it('a removed unit is left as it is', () => {
    expect(planRemoveUnit({}, { name: 'wordpress/0', now: NOW })).toEqual({
      changes: [],
      result: { removed: false, applicationRemoved: false },
    });
  });

  it('"If the unit is a principal unit, unassign the unit from its machine"', () => {
    const plan = planRemoveUnit(
      {
        unit: unit('wordpress/0', { life: 'dead', machine: '1' }),
        // Another principal stays, so the machine stays Alive (see the fast-forward test below).
        machine: machine('1', { principals: ['mysql/0', 'wordpress/0'] }),
        application: app('wordpress', { unitCount: 1 }),
      },
      { name: 'wordpress/0', now: NOW },
    );
    expect(plan.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'machine', id: '1' },
        removeFromSet: { principals: ['wordpress/0'] },
        expect: { contains: { principals: 'wordpress/0' } },
      },
      { op: 'remove', ref: { kind: 'unit', name: 'wordpress/0' }, expect: { life: 'dead' } },
      { op: 'update', ref: { kind: 'application', name: 'wordpress' }, add: { unitCount: -1 }, expect: { life: 'alive' } },
    ]);
  });

  it("removing a machine's last principal sets the machine Dying in the same transaction (Juju 2.x host fast-forward)", () => {
    const plan = planRemoveUnit(
      {
        unit: unit('wordpress/0', { life: 'dead', machine: '1' }),
        machine: machine('1', { principals: ['wordpress/0'] }),
        application: app('wordpress', { unitCount: 2 }),
      },
      { name: 'wordpress/0', now: NOW },
    );
    expect(plan.changes[0]).toEqual({
      op: 'update',
      ref: { kind: 'machine', id: '1' },
      removeFromSet: { principals: ['wordpress/0'] },
      set: { life: 'dying' },
      expect: { life: 'alive', setSize: { principals: 1 }, contains: { principals: 'wordpress/0' } },
    });
  });

  it('"If the unit is a subordinate unit, unassign it from its principal unit"', () => {
    const plan = planRemoveUnit(
      {
        unit: unit('logging/0', { life: 'dead', principal: 'wordpress/0', machine: '1' }),
        principal: unit('wordpress/0', { subordinates: ['logging/0'] }),
        application: app('logging', { subordinate: true, unitCount: 1 }),
      },
      { name: 'logging/0', now: NOW },
    );
    expect(plan.changes[0]).toEqual({
      op: 'update',
      ref: { kind: 'unit', name: 'wordpress/0' },
      removeFromSet: { subordinates: ['logging/0'] },
      expect: { contains: { subordinates: 'logging/0' } },
    });
  });

  it.each([
    ['Alive', { life: 'alive' as const, unitCount: 1 }, false],
    ['Dying with at least two units', { life: 'dying' as const, unitCount: 2 }, false],
    ['Dying and in at least one relation', { life: 'dying' as const, unitCount: 1, relations: ['riak:ring'] }, false],
    ['Dying with this unit its last reference', { life: 'dying' as const, unitCount: 1 }, true],
  ])('application %s → removed: %s', (_, fields, removed) => {
    const plan = planRemoveUnit(
      { unit: unit('wordpress/0', { life: 'dead' }), application: app('wordpress', fields) },
      { name: 'wordpress/0', now: NOW },
    );
    expect(plan.result.applicationRemoved).toBe(removed);
    expect(plan.changes.at(-1)?.op).toBe(removed ? 'remove' : 'update');
  });

  it('a Dying application keeping other units asserts only that one more is there: removals of its units do not cancel each other', () => {
    const plan = planRemoveUnit(
      { unit: unit('wordpress/0', { life: 'dead' }), application: app('wordpress', { life: 'dying', unitCount: 5 }) },
      { name: 'wordpress/0', now: NOW },
    );
    expect(plan.changes.at(-1)).toEqual({
      op: 'update',
      ref: { kind: 'application', name: 'wordpress' },
      add: { unitCount: -1 },
      // At least two (this unit and another) when it commits; the last of them plans again and removes it.
      expect: { life: 'dying', atLeast: { unitCount: 2 } },
    });
  });

  it('the last unit of a Dying application in a relation asserts the counts it read: the application stays for the relation', () => {
    const plan = planRemoveUnit(
      {
        unit: unit('wordpress/0', { life: 'dead' }),
        application: app('wordpress', { life: 'dying', unitCount: 1, relations: ['riak:ring'] }),
      },
      { name: 'wordpress/0', now: NOW },
    );
    expect(plan.changes.at(-1)).toMatchObject({
      op: 'update',
      expect: { life: 'dying', equals: { unitCount: 1 }, setSize: { relations: 1 } },
    });
  });
});
