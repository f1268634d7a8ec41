import { describe, expect, it } from 'vitest';
import { DroverError } from '#shared/domain/errors.js';
import { planDestroyUnit, type DestroyUnitSnapshot } from '#shared/domain/plans/destroy-unit.js';
import { app, machine, NOW, unit } from './destruction-fixtures.js';

const started = { current: 'idle', since: NOW };
const allocating = { current: 'allocating', since: NOW };

describe('planDestroyUnit', () => {
  const refusals: [string, DestroyUnitSnapshot, string, string][] = [
    ['an unknown unit', { subordinates: [] }, 'not-found', 'unit "wordpress/0" does not exist'],
    [
      'a subordinate, by the user',
      { unit: unit('wordpress/0', { principal: 'mysql/0' }), subordinates: [] },
      'invalid-argument',
      'unit "wordpress/0" is a subordinate, to remove use remove-relation. Note: this will remove all units of "wordpress"',
    ],
  ];
  it.each(refusals)('refuses %s', (_, snapshot, code, message) => {
    let error: unknown;
    try {
      planDestroyUnit(snapshot, { name: 'wordpress/0', by: 'user' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DroverError);
    expect(error).toMatchObject({ code, message });
  });

  it.each(['dying', 'dead'] as const)('"If the unit is not Alive, abort without error" (%s)', (life) => {
    for (const by of ['user', 'agent'] as const) {
      expect(planDestroyUnit({ unit: unit('wordpress/0', { life }), subordinates: [] }, { name: 'wordpress/0', by })).toEqual({
        changes: [],
        result: 'already-dying',
      });
    }
  });

  it('sets a started unit Dying, asserting it is Alive', () => {
    const plan = planDestroyUnit(
      { unit: unit('wordpress/0', { agentStatus: started, machine: '1' }), machine: machine('1'), subordinates: [] },
      { name: 'wordpress/0', by: 'user' },
    );
    expect(plan.result).toBe('dying');
    expect(plan.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'unit', name: 'wordpress/0' },
        set: { life: 'dying' },
        expect: { life: 'alive', setSize: { subordinates: 0, storageAttachments: 0 } },
      },
    ]);
  });

  it('"destroying a principal destroys all its subordinates": Alive ones go Dying in the same transaction', () => {
    const snapshot: DestroyUnitSnapshot = {
      unit: unit('wordpress/0', { subordinates: ['logging/0', 'ntp/0'] }),
      subordinates: [unit('logging/0', { principal: 'wordpress/0' }), unit('ntp/0', { principal: 'wordpress/0', life: 'dying' })],
    };
    const plan = planDestroyUnit(snapshot, { name: 'wordpress/0', by: 'user' });
    expect(plan.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'unit', name: 'wordpress/0' },
        set: { life: 'dying' },
        expect: { life: 'alive', setSize: { subordinates: 2, storageAttachments: 0 } },
      },
      { op: 'update', ref: { kind: 'unit', name: 'logging/0' }, set: { life: 'dying' }, expect: { life: 'alive' } },
    ]);
  });

  it('removes a principal whose agent never started at once, unassigning it and releasing its application', () => {
    const snapshot: DestroyUnitSnapshot = {
      unit: unit('wordpress/0', { agentStatus: allocating, machine: '1' }),
      application: app('wordpress', { unitCount: 2 }),
      // Another principal stays, so the machine stays Alive (no host fast-forward).
      machine: machine('1', { principals: ['mysql/0', 'wordpress/0'] }),
      subordinates: [],
    };
    const plan = planDestroyUnit(snapshot, { name: 'wordpress/0', by: 'user' });
    expect(plan.result).toBe('removed');
    expect(plan.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'machine', id: '1' },
        removeFromSet: { principals: ['wordpress/0'] },
        expect: { contains: { principals: 'wordpress/0' } },
      },
      {
        op: 'remove',
        ref: { kind: 'unit', name: 'wordpress/0' },
        expect: {
          life: 'alive',
          equals: { 'agentStatus.current': 'allocating', machine: '1' },
          setSize: { subordinates: 0, scopes: 0, storageAttachments: 0 },
        },
      },
      { op: 'update', ref: { kind: 'application', name: 'wordpress' }, add: { unitCount: -1 }, expect: { life: 'alive' } },
    ]);
  });

  it('the short-cut removes a never-started unit with no machine, asserting it still has none (an assignment meanwhile cancels it)', () => {
    const plan = planDestroyUnit(
      { unit: unit('wordpress/0', { agentStatus: allocating }), subordinates: [] },
      { name: 'wordpress/0', by: 'user' },
    );
    expect(plan.result).toBe('removed');
    expect(plan.changes).toEqual([
      {
        op: 'remove',
        ref: { kind: 'unit', name: 'wordpress/0' },
        expect: {
          life: 'alive',
          equals: { 'agentStatus.current': 'allocating' },
          setSize: { subordinates: 0, scopes: 0, storageAttachments: 0 },
          absent: ['machine'],
        },
      },
    ]);
  });

  it('the short-cut removes a Dying application with its last never-started unit', () => {
    const snapshot: DestroyUnitSnapshot = {
      unit: unit('wordpress/0', { agentStatus: allocating }),
      application: app('wordpress', { life: 'dying', unitCount: 1 }),
      subordinates: [],
    };
    const plan = planDestroyUnit(snapshot, { name: 'wordpress/0', by: 'user' });
    expect(plan.changes.at(-1)).toEqual({
      op: 'remove',
      ref: { kind: 'application', name: 'wordpress' },
      expect: { life: 'dying', equals: { unitCount: 1 }, setSize: { relations: 0 } },
    });
  });

  it.each([
    ['with subordinates', { subordinates: ['logging/0'] }],
    ['in a relation scope', { scopes: ['wordpress:db mysql:server'] }],
  ])('never short-cuts a never-started unit %s', (_, fields) => {
    const plan = planDestroyUnit(
      { unit: unit('wordpress/0', { agentStatus: allocating, ...fields }), subordinates: [] },
      { name: 'wordpress/0', by: 'user' },
    );
    expect(plan.result).toBe('dying');
  });

  it("the agent's own transition is allowed on subordinates and never short-cuts", () => {
    const sub = planDestroyUnit(
      { unit: unit('logging/0', { principal: 'wordpress/0' }), subordinates: [] },
      { name: 'logging/0', by: 'agent' },
    );
    expect(sub.result).toBe('dying');
    const fresh = planDestroyUnit(
      { unit: unit('wordpress/0', { agentStatus: allocating }), subordinates: [] },
      { name: 'wordpress/0', by: 'agent' },
    );
    expect(fresh.result).toBe('dying');
  });
});
