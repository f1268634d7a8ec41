// goal-state's answer as Juju's uniter facade builds it: own units, and per local endpoint of each
// non-peer relation the related application's status and its units.
import { describe, expect, it } from 'vitest';
import { goalTime, planGoalState } from '#shared/domain/goal-state.js';
import { application, NOW, relation, unit } from './plans/relation-fixtures.js';

const wp = application('wordpress');
const mysql = application('mysql');
const logging = application('logging');
const riak = application('riak');
const since = goalTime(NOW);
const status = (current: string) => ({ current, since: NOW });

describe('goal-state', () => {
  it("lists the application's units, Dying ones as dying, Dead ones not at all", () => {
    const own = [
      unit('wordpress/0', { workloadStatus: status('active') }),
      unit('wordpress/1', { life: 'dying' }),
      unit('wordpress/2', { life: 'dead' }),
    ];
    expect(planGoalState(own[0]!, own, []).units).toEqual({
      'wordpress/0': { status: 'active', since },
      'wordpress/1': { status: 'dying', since },
    });
  });

  it("keys each relation by the unit's own endpoint, with the relation's status and the other side's units", () => {
    const db = relation([wp, mysql], ['wordpress', 'mysql'], 1);
    const me = unit('wordpress/0');
    const other = [unit('mysql/0', { workloadStatus: status('blocked') })];
    expect(planGoalState(me, [me], [{ relation: db, application: 'mysql', units: other }]).relations).toEqual({
      db: { mysql: { status: 'joining', since }, 'mysql/0': { status: 'blocked', since } },
    });
    const joined = { ...db, unitCount: 2 };
    expect(planGoalState(me, [me], [{ relation: joined, application: 'mysql', units: other }]).relations.db?.mysql?.status).toBe('joined');
    const dying = { ...db, life: 'dying' as const };
    expect(planGoalState(me, [me], [{ relation: dying, application: 'mysql', units: other }]).relations.db?.mysql?.status).toBe('broken');
  });

  it('leaves out peer relations, and subordinates of other principals', () => {
    const ring = relation([riak], ['riak'], 2);
    const r0 = unit('riak/0', { application: 'riak' });
    expect(planGoalState(r0, [r0], [{ relation: ring, application: 'riak', units: [r0] }]).relations).toEqual({});
    const info = relation([wp, logging], ['wordpress', 'logging'], 3);
    const me = unit('wordpress/0');
    const subs = [unit('logging/0', { principal: 'wordpress/0' }), unit('logging/1', { principal: 'wordpress/1' })];
    const related = planGoalState(me, [me], [{ relation: info, application: 'logging', units: subs }]).relations;
    expect(Object.keys(Object.values(related)[0]!)).toEqual(['logging', 'logging/0']);
  });
});
