import { describe, expect, it } from 'vitest';
import { planEnterScope, type EnterScopeSnapshot } from '#shared/domain/plans/enter-scope.js';
import type { Change } from '#shared/domain/plan.js';
import { sequentialNumbers } from '#shared/domain/sequences.js';
import { application, linked, NOW, relation, unit } from './relation-fixtures.js';

const wp = application('wordpress');
const mysql = application('mysql');
const logging = application('logging');
const db = relation([wp, mysql], ['wordpress', 'mysql'], 4);
const dir = relation([wp, logging], ['wordpress', 'logging'], 5);
const ADDRESS = { 'private-address': '10.0.0.1' };
const plan = (snapshot: EnterScopeSnapshot) => planEnterScope(snapshot, ADDRESS, NOW);
const refsOf = (changes: Change[]) => changes.map((c) => `${c.op} ${c.ref.kind}`);

/** wordpress/0 on machine 3, entering the container relation with logging. */
const principalEntering = (fields: Partial<EnterScopeSnapshot> = {}): EnterScopeSnapshot => ({
  unit: unit('wordpress/0', { machine: '3' }),
  relation: dir,
  inScope: false,
  subordinate: { application: linked([logging], [dir])[0]!, relations: [dir], numbers: sequentialNumbers({ 'unit#logging': 2 }) },
  ...fields,
});

describe('planEnterScope', () => {
  it('enters: scope member, relation count, unit scopes, initial settings at version 1', () => {
    const p = plan({ unit: unit('wordpress/0'), relation: db, inScope: false });
    expect(p.result).toEqual({});
    expect(p.changes).toEqual([
      { op: 'create', ref: { kind: 'scope', relation: db.key, unit: 'wordpress/0' }, value: { relation: db.key, unit: 'wordpress/0' } },
      { op: 'update', ref: { kind: 'relation', key: db.key }, add: { unitCount: 1 }, expect: { life: 'alive' } },
      {
        op: 'update',
        ref: { kind: 'unit', name: 'wordpress/0' },
        addToSet: { scopes: [db.key] },
        expect: { life: 'alive', lacks: { scopes: db.key } },
      },
      // Created: no settings are left from before, and the transaction asserts that.
      {
        op: 'create',
        ref: { kind: 'settings', relationId: 4, unit: 'wordpress/0' },
        value: { relationId: 4, unit: 'wordpress/0', settings: ADDRESS, version: 1 },
      },
    ]);
  });

  it("the scope member names the unit's machine, for the notifier to list the scope's machines in one query", () => {
    const p = plan({ unit: unit('wordpress/0', { machine: '3' }), relation: db, inScope: false });
    expect(p.changes[0]).toEqual({
      op: 'create',
      ref: { kind: 'scope', relation: db.key, unit: 'wordpress/0' },
      value: { relation: db.key, unit: 'wordpress/0', machine: '3' },
    });
  });

  it('settings left from before get the next version, asserting the version read so it only grows', () => {
    const p = plan({ unit: unit('wordpress/0'), relation: db, inScope: false, settingsVersion: 6 });
    expect(p.changes[3]).toEqual({
      op: 'update',
      ref: { kind: 'settings', relationId: 4, unit: 'wordpress/0' },
      set: { settings: ADDRESS, version: 7 },
      expect: { equals: { version: 6 } },
    });
  });

  it('already in scope: done, even once the relation is Dying', () => {
    expect(plan({ unit: unit('wordpress/0'), relation: { ...db, life: 'dying' }, inScope: true })).toEqual({ changes: [], result: {} });
  });

  it.each([
    { name: 'a Dying unit', snapshot: { unit: unit('wordpress/0', { life: 'dying' }), relation: db, inScope: false } },
    { name: 'a Dying relation', snapshot: { unit: unit('wordpress/0'), relation: { ...db, life: 'dying' as const }, inScope: false } },
    { name: 'a removed relation', snapshot: { unit: unit('wordpress/0'), inScope: false } },
  ])('refuses $name: "cannot enter scope: unit or relation is not alive"', ({ snapshot }) => {
    expect(() => plan(snapshot)).toThrow('cannot enter scope: unit or relation is not alive');
  });

  it('refuses a unit of an application outside the relation', () => {
    expect(() => plan({ unit: unit('varnish/0'), relation: db, inScope: false })).toThrow(
      `application "varnish" is not a member of "${db.key}"`,
    );
  });

  it('a principal entering a container relation creates exactly one subordinate on its machine', () => {
    const p = plan(principalEntering());
    expect(p.result).toEqual({ subordinate: 'logging/2' });
    expect(p.changes).toContainEqual({
      op: 'create',
      ref: { kind: 'unit', name: 'logging/2' },
      value: expect.objectContaining({
        application: 'logging',
        principal: 'wordpress/0',
        machine: '3',
        series: 'jammy',
        constraints: {},
        life: 'alive',
        agentStatus: { current: 'allocating', since: NOW },
      }),
    });
    expect(p.changes).toContainEqual({
      op: 'update',
      ref: { kind: 'unit', name: 'wordpress/0' },
      addToSet: { subordinates: ['logging/2'] },
      expect: { life: 'alive', setSize: { subordinates: 0 }, equals: { machine: '3' } },
    });
    expect(p.changes).toContainEqual({
      op: 'update',
      ref: { kind: 'application', name: 'logging' },
      add: { unitCount: 1 },
      expect: { life: 'alive' },
    });
    // Its number was reserved before the transaction, which does not touch the sequence.
    expect(p.changes.filter((c) => c.ref.kind === 'sequence')).toEqual([]);
    expect(p.changes.length).toBeLessThan(25);
  });

  it('a principal that already has a subordinate of that application creates none, relying on it being Alive', () => {
    const principal = unit('wordpress/0', { machine: '3', subordinates: ['logging/0'] });
    const p = plan(
      principalEntering({
        unit: principal,
        subordinate: { ...principalEntering().subordinate!, existing: unit('logging/0', { principal: 'wordpress/0' }) },
      }),
    );
    expect(p.result).toEqual({});
    expect(refsOf(p.changes)).toEqual(['create scope', 'update relation', 'update unit', 'create settings', 'check unit']);
    expect(p.changes[4]).toEqual({ op: 'check', ref: { kind: 'unit', name: 'logging/0' }, expect: { life: 'alive' } });
  });

  it('refuses while that subordinate is not Alive: "cannot enter scope yet"', () => {
    const principal = unit('wordpress/0', { machine: '3', subordinates: ['logging/0'] });
    const existing = unit('logging/0', { principal: 'wordpress/0', life: 'dying' });
    expect(() => plan(principalEntering({ unit: principal, subordinate: { ...principalEntering().subordinate!, existing } }))).toThrow(
      'cannot enter scope yet: non-alive subordinate unit has not been removed',
    );
  });

  it('a principal already in scope without its subordinate gets it on entering again', () => {
    const p = plan(principalEntering({ inScope: true }));
    expect(p.result).toEqual({ subordinate: 'logging/2' });
    expect(refsOf(p.changes)).toEqual(['check relation', 'create unit', 'update unit', 'update application']);
  });

  it('...but not once it or the relation is Dying: on their way out, they get no new subordinate', () => {
    expect(plan(principalEntering({ inScope: true, relation: { ...dir, life: 'dying' } }))).toEqual({ changes: [], result: {} });
    expect(plan(principalEntering({ inScope: true, unit: unit('wordpress/0', { machine: '3', life: 'dying' }) }))).toEqual({
      changes: [],
      result: {},
    });
  });

  it('"Both the required relation and the principal side of the relation must be deployed before a subordinate is deployed"', () => {
    const agent = application('metrics-agent');
    const info = relation([wp, agent], ['wordpress', 'metrics-agent'], 8);
    const p = plan({
      unit: unit('wordpress/0', { machine: '3' }),
      relation: info,
      inScope: false,
      subordinate: { application: linked([agent], [info])[0]!, relations: [info], numbers: sequentialNumbers() },
    });
    expect(p.result).toEqual({});
    expect(refsOf(p.changes)).toEqual(['create scope', 'update relation', 'update unit', 'create settings']);
  });

  it("once the subordinate's required relations are there, its relation set is asserted", () => {
    const agent = application('metrics-agent');
    const info = relation([wp, agent], ['wordpress', 'metrics-agent'], 8);
    const store = relation([agent, mysql], ['metrics-agent', 'mysql'], 9);
    const p = plan({
      unit: unit('wordpress/0', { machine: '3' }),
      relation: info,
      inScope: false,
      subordinate: { application: linked([agent], [info, store])[0]!, relations: [info, store], numbers: sequentialNumbers() },
    });
    expect(p.result).toEqual({ subordinate: 'metrics-agent/0' });
    expect(p.changes).toContainEqual({
      op: 'update',
      ref: { kind: 'application', name: 'metrics-agent' },
      add: { unitCount: 1 },
      expect: { life: 'alive', setSize: { relations: 2 } },
    });
  });

  it('a subordinate entering just enters', () => {
    const p = plan({ unit: unit('logging/0', { principal: 'wordpress/0' }), relation: dir, inScope: false });
    expect(p.result).toEqual({});
    expect(refsOf(p.changes)).toEqual(['create scope', 'update relation', 'update unit', 'create settings']);
  });
});
