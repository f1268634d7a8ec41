import { describe, expect, it } from 'vitest';
import { planDestroyRelation, type RelationTarget } from '#shared/domain/plans/destroy-relation.js';
import type { Application, Relation } from '#shared/domain/entities.js';
import { application, linked, NOW, relation } from './relation-fixtures.js';

const WP_DB = 'wordpress:db mysql:server';
const wp = application('wordpress');
const mysql = application('mysql');
const db = relation([wp, mysql], ['wordpress', 'mysql'], 4);
const plan = (candidates: Relation[], applications: Application[], target: RelationTarget) =>
  planDestroyRelation({ candidates, applications }, target, NOW);

describe('planDestroyRelation', () => {
  it('"When a relation is destroyed with no units in scope, it will immediately become Dead and be removed"', () => {
    const p = plan([db], linked([wp, mysql], [db]), ['wordpress', 'mysql']);
    expect(p.result).toEqual({ key: WP_DB, id: 4, outcome: 'removed' });
    expect(p.changes).toEqual([
      { op: 'remove', ref: { kind: 'relation', key: WP_DB }, expect: { life: 'alive', equals: { unitCount: 0 } } },
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

  it('"If any unit is in scope, set the relation to Dying", asserting that one still is', () => {
    const p = plan([{ ...db, unitCount: 3 }], linked([wp, mysql], [db]), ['mysql:server', 'wordpress:db']);
    expect(p.result.outcome).toBe('dying');
    expect(p.changes).toEqual([
      { op: 'update', ref: { kind: 'relation', key: WP_DB }, set: { life: 'dying' }, expect: { life: 'alive', atLeast: { unitCount: 1 } } },
    ]);
  });

  it('"If the relation is not Alive, abort without error"', () => {
    expect(plan([{ ...db, life: 'dying', unitCount: 1 }], [wp, mysql], 4)).toEqual({
      changes: [],
      result: { key: WP_DB, id: 4, outcome: 'unchanged' },
    });
  });

  it('a container relation schedules the dyingSubordinates cleanup for its subordinate application', () => {
    const logging = application('logging');
    const r = relation([wp, logging], ['wordpress', 'logging'], 7, { unitCount: 2 });
    const p = plan([r], linked([wp, logging], [r]), ['logging', 'wordpress']);
    expect(p.changes).toContainEqual({
      op: 'create',
      ref: { kind: 'cleanup', id: 'dyingSubordinates:logging:7' },
      value: { id: 'dyingSubordinates:logging:7', kind: 'dyingSubordinates', target: 'logging', createdAt: NOW },
    });
  });

  it('a global relation schedules no dyingSubordinates cleanup', () => {
    const p = plan([{ ...db, unitCount: 1 }], [wp, mysql], 4);
    expect(p.changes.some((c) => c.ref.kind === 'cleanup')).toBe(false);
  });

  const refusals: { name: string; candidates: Relation[]; target: RelationTarget; message: string }[] = [
    {
      name: 'an unknown relation by endpoints',
      candidates: [],
      target: ['subway:db', 'mongo:server'],
      message: 'relation "subway:db mongo:server" not found',
    },
    { name: 'an unknown relation by id', candidates: [db], target: 999, message: 'relation 999 not found' },
    {
      name: 'endpoints that do not match',
      candidates: [db],
      target: ['wordpress:cache', 'mysql'],
      message: 'relation "wordpress:cache mysql" not found',
    },
    {
      name: 'a peer relation',
      candidates: [relation([application('riak')], ['riak'], 0)],
      target: ['riak'],
      message: 'cannot destroy relation "riak:ring": is a peer relation',
    },
    {
      name: 'three endpoints',
      candidates: [db],
      target: ['wordpress', 'mysql', 'riak'],
      message: 'a relation must involve one or two applications',
    },
  ];
  it.each(refusals)('refuses $name', ({ candidates, target, message }) => {
    expect(() => plan(candidates, [wp, mysql], target)).toThrow(message);
  });

  it('refuses an ambiguous pair, naming the candidates', () => {
    const logging = application('logging');
    const dir = relation([wp, logging], ['wordpress', 'logging'], 1);
    const copy = { ...dir, id: 2, key: 'other' };
    expect(() => plan([dir, copy], [wp, logging], ['wordpress', 'logging'])).toThrow(
      `ambiguous relation: "wordpress logging" could refer to "${dir.key}"; "other"`,
    );
  });

  it('prefers an explicit interface over the implicit juju-info', () => {
    const logging = application('logging');
    const dir = relation([wp, logging], ['wordpress', 'logging'], 1);
    const info = relation([wp, logging], ['wordpress:juju-info', 'logging:info'], 2);
    expect(plan([info, dir], [wp, logging], ['wordpress', 'logging']).result.key).toBe(dir.key);
    expect(plan([info, dir], [wp, logging], ['wordpress:juju-info', 'logging']).result.key).toBe(info.key);
  });
});
