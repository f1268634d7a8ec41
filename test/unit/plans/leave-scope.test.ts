import { describe, expect, it } from 'vitest';
import { planLeaveScope } from '#shared/domain/plans/leave-scope.js';
import { application, linked, NOW, relation, unit } from './relation-fixtures.js';

const WP_DB = 'wordpress:db mysql:server';
const [wp, mysql] = [application('wordpress', { unitCount: 1 }), application('mysql')];
const db = relation([wp, mysql], ['wordpress', 'mysql'], 4);
const apps = linked([wp, mysql], [db]);
const wp0 = unit('wordpress/0', { scopes: [WP_DB] });
const removeMember = { op: 'remove', ref: { kind: 'scope', relation: WP_DB, unit: 'wordpress/0' } };
const dropScope = {
  op: 'update',
  ref: { kind: 'unit', name: 'wordpress/0' },
  removeFromSet: { scopes: [WP_DB] },
  expect: { contains: { scopes: WP_DB } },
};

describe('planLeaveScope', () => {
  it('leaves an Alive relation: decrements its count', () => {
    const p = planLeaveScope({ unit: wp0, relation: { ...db, unitCount: 2 }, inScope: true, applications: apps }, 'wordpress/0', NOW);
    expect(p).toEqual({
      changes: [
        removeMember,
        dropScope,
        { op: 'update', ref: { kind: 'relation', key: WP_DB }, add: { unitCount: -1 }, expect: { life: 'alive' } },
      ],
      result: { removedRelation: false },
    });
  });

  it('leaves a Dying relation others are still in: asserts that another still is', () => {
    const p = planLeaveScope(
      { unit: wp0, relation: { ...db, life: 'dying', unitCount: 2 }, inScope: true, applications: apps },
      'wordpress/0',
      NOW,
    );
    expect(p.changes[2]).toEqual({
      op: 'update',
      ref: { kind: 'relation', key: WP_DB },
      add: { unitCount: -1 },
      expect: { life: 'dying', atLeast: { unitCount: 2 } },
    });
  });

  it('"When the last unit leaves the scope of a Dying relation, it must remove the relation from state"', () => {
    const p = planLeaveScope(
      { unit: wp0, relation: { ...db, life: 'dying', unitCount: 1 }, inScope: true, applications: apps },
      'wordpress/0',
      NOW,
    );
    expect(p.result).toEqual({ removedRelation: true });
    expect(p.changes).toEqual([
      removeMember,
      dropScope,
      { op: 'remove', ref: { kind: 'relation', key: WP_DB }, expect: { life: 'dying', equals: { unitCount: 1 } } },
      {
        op: 'create',
        ref: { kind: 'cleanup', id: 'settings:4' },
        value: { id: 'settings:4', kind: 'settings', target: '4', createdAt: NOW },
      },
      {
        op: 'update',
        ref: { kind: 'application', name: 'wordpress' },
        removeFromSet: { relations: [WP_DB] },
        expect: { life: 'alive', contains: { relations: WP_DB } },
      },
      {
        op: 'update',
        ref: { kind: 'application', name: 'mysql' },
        removeFromSet: { relations: [WP_DB] },
        expect: { life: 'alive', contains: { relations: WP_DB } },
      },
    ]);
  });

  it('"relation removal may also imply service removal": a Dying counterpart with no units and no other relation is removed', () => {
    const dyingMysql = { ...apps[1]!, life: 'dying' as const };
    const p = planLeaveScope(
      { unit: wp0, relation: { ...db, life: 'dying', unitCount: 1 }, inScope: true, applications: [apps[0]!, dyingMysql] },
      'wordpress/0',
      NOW,
    );
    expect(p.changes).toContainEqual({
      op: 'remove',
      ref: { kind: 'application', name: 'mysql' },
      expect: { life: 'dying', equals: { unitCount: 0 }, setSize: { relations: 1 }, contains: { relations: WP_DB } },
    });
  });

  it.each([
    { name: 'not in scope', snapshot: { unit: wp0, relation: db, inScope: false, applications: apps } },
    { name: 'the relation is gone', snapshot: { unit: wp0, inScope: false, applications: [] } },
  ])('leaving is done when $name', ({ snapshot }) => {
    expect(planLeaveScope(snapshot, 'wordpress/0', NOW)).toEqual({ changes: [], result: { removedRelation: false } });
  });
});
