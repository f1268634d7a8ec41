import { describe, expect, it } from 'vitest';
import type { Change } from '#shared/domain/plan.js';
import {
  planDestroyApplication,
  RELATIONS_PER_TRANSACTION,
  type DestroyApplicationSnapshot,
} from '#shared/domain/plans/destroy-application.js';
import { app, NOW, relation } from './destruction-fixtures.js';

const DB = 'wordpress:db mysql:server';
const plan = (snapshot: DestroyApplicationSnapshot) => planDestroyApplication(snapshot, { name: 'mysql' }, NOW);
const appChange = (changes: Change[]) => changes.find((c) => c.ref.kind === 'application' && c.ref.name === 'mysql');
const kinds = (changes: Change[]) => changes.map((c) => `${c.op} ${c.ref.kind}`);

describe('planDestroyApplication', () => {
  it('refuses an unknown application', () => {
    expect(() => plan({ relations: [], counterparts: [] })).toThrow('application "mysql" not found');
  });

  it('"If the service is not Alive, abort without error"', () => {
    expect(plan({ application: app('mysql', { life: 'dying', unitCount: 1 }), relations: [], counterparts: [] })).toEqual({
      changes: [],
      result: 'already-dying',
    });
  });

  it('refuses an application an offer names, as Juju does ("application is used by N offers"), in the singular for one', () => {
    const refusal = (offers: string[]) => {
      try {
        plan({ application: app('mysql', { offers }), relations: [], counterparts: [] });
      } catch (e) {
        return e;
      }
      throw new Error('planned');
    };
    expect(refusal(['db'])).toMatchObject({
      code: 'not-alive',
      message: 'cannot destroy application "mysql": application is used by 1 offer',
    });
    expect(refusal(['db', 'admin'])).toMatchObject({
      code: 'not-alive',
      message: 'cannot destroy application "mysql": application is used by 2 offers',
    });
  });

  it('"Otherwise, remove the service immediately": no units, no relations', () => {
    expect(plan({ application: app('mysql'), relations: [], counterparts: [] })).toEqual({
      changes: [
        {
          op: 'remove',
          ref: { kind: 'application', name: 'mysql' },
          expect: { life: 'alive', equals: { unitCount: 0 }, setSize: { relations: 0, offers: 0 } },
        },
      ],
      result: 'removed',
    });
  });

  it('"If the service\'s unit count is greater than 0 ... set the service to Dying", and schedules the units cleanup', () => {
    const p = plan({ application: app('mysql', { unitCount: 3 }), relations: [], counterparts: [] });
    expect(p.result).toBe('dying');
    expect(p.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'application', name: 'mysql' },
        set: { life: 'dying' },
        expect: { life: 'alive', atLeast: { unitCount: 1 }, setSize: { relations: 0, offers: 0 } },
      },
      {
        op: 'create',
        ref: { kind: 'cleanup', id: `units:mysql:${NOW}` },
        value: { id: `units:mysql:${NOW}`, kind: 'units', target: 'mysql', createdAt: NOW },
      },
    ]);
  });

  it('an Alive relation with no units in scope is removed, releasing only the counterpart, and the service with it', () => {
    const p = plan({
      application: app('mysql', { relations: [DB] }),
      relations: [relation(4, ['wordpress:db', 'mysql:server'])],
      counterparts: [app('wordpress', { relations: [DB], unitCount: 1 })],
    });
    expect(p.result).toBe('removed');
    expect(p.changes).toEqual([
      { op: 'remove', ref: { kind: 'relation', key: DB }, expect: { life: 'alive', equals: { unitCount: 0 } } },
      {
        op: 'create',
        ref: { kind: 'cleanup', id: 'settings:4' },
        value: { id: 'settings:4', kind: 'settings', target: '4', createdAt: NOW },
      },
      {
        op: 'update',
        ref: { kind: 'application', name: 'wordpress' },
        removeFromSet: { relations: [DB] },
        expect: { life: 'alive', contains: { relations: DB } },
      },
      {
        op: 'remove',
        ref: { kind: 'application', name: 'mysql' },
        expect: { life: 'alive', equals: { unitCount: 0 }, setSize: { relations: 1, offers: 0 } },
      },
    ]);
  });

  it('an Alive relation with units in scope goes Dying, and so does the service', () => {
    const p = plan({
      application: app('mysql', { relations: [DB] }),
      relations: [relation(4, ['wordpress:db', 'mysql:server'], { unitCount: 2 })],
      counterparts: [app('wordpress', { relations: [DB] })],
    });
    expect(p.result).toBe('dying');
    expect(p.changes).toEqual([
      { op: 'update', ref: { kind: 'relation', key: DB }, set: { life: 'dying' }, expect: { life: 'alive', atLeast: { unitCount: 1 } } },
      {
        op: 'update',
        ref: { kind: 'application', name: 'mysql' },
        set: { life: 'dying' },
        expect: { life: 'alive', equals: { unitCount: 0 }, setSize: { relations: 1, offers: 0 } },
      },
    ]);
  });

  it('"If the relation is already Dying, skip it" — it still holds the service, which goes Dying', () => {
    const p = plan({
      application: app('mysql', { relations: [DB] }),
      relations: [relation(4, ['wordpress:db', 'mysql:server'], { life: 'dying', unitCount: 1 })],
      counterparts: [app('wordpress', { relations: [DB] })],
    });
    expect(kinds(p.changes)).toEqual(['update application']);
    expect(p.result).toBe('dying');
  });

  it('"decrement its relation count by the value of the removal counter"', () => {
    const peer = relation(1, ['mysql:cluster']);
    const p = plan({
      application: app('mysql', { relations: [DB, 'mysql:cluster'] }),
      relations: [relation(4, ['wordpress:db', 'mysql:server'], { unitCount: 1 }), peer],
      counterparts: [app('wordpress', { relations: [DB] })],
    });
    expect(p.result).toBe('dying');
    expect(appChange(p.changes)).toMatchObject({ set: { life: 'dying' }, removeFromSet: { relations: ['mysql:cluster'] } });
  });

  it('a Dying counterpart whose last reference was the relation is removed too', () => {
    const p = plan({
      application: app('mysql', { relations: [DB] }),
      relations: [relation(4, ['wordpress:db', 'mysql:server'])],
      counterparts: [app('wordpress', { life: 'dying', relations: [DB] })],
    });
    expect(p.changes).toContainEqual({
      op: 'remove',
      ref: { kind: 'application', name: 'wordpress' },
      expect: { life: 'dying', equals: { unitCount: 0 }, setSize: { relations: 1 }, contains: { relations: DB } },
    });
  });

  it.each([
    ['removed', 0],
    ['set Dying', 1],
  ])('a container-scoped relation to a subordinate application %s schedules the dying-subordinates cleanup', (_, unitCount) => {
    const key = 'logging:info mysql:juju-info';
    const p = planDestroyApplication(
      {
        application: app('mysql', { relations: [key], unitCount: 1 }),
        relations: [relation(7, ['logging:info', 'mysql:juju-info'], { scope: 'container', unitCount })],
        counterparts: [app('logging', { subordinate: true, relations: [key] })],
      },
      { name: 'mysql' },
      NOW,
    );
    expect(p.changes).toContainEqual({
      op: 'create',
      ref: { kind: 'cleanup', id: 'dyingSubordinates:logging:7' },
      value: { id: 'dyingSubordinates:logging:7', kind: 'dyingSubordinates', target: 'logging', createdAt: NOW },
    });
  });

  it('destroying the subordinate application itself schedules no dying-subordinates cleanup', () => {
    const key = 'logging:info mysql:juju-info';
    const p = planDestroyApplication(
      {
        application: app('logging', { subordinate: true, relations: [key] }),
        relations: [relation(7, ['logging:info', 'mysql:juju-info'], { scope: 'container' })],
        counterparts: [app('mysql', { relations: [key] })],
      },
      { name: 'logging' },
      NOW,
    );
    expect(p.changes.some((c) => c.ref.kind === 'cleanup' && c.ref.id.startsWith('dyingSubordinates'))).toBe(false);
    expect(p.result).toBe('removed');
  });

  it('sheds relations in bounded batches, the application staying Alive, when they do not fit one transaction', () => {
    const n = RELATIONS_PER_TRANSACTION + 2;
    const rels = Array.from({ length: n }, (_, i) => relation(i, [`app${i}:db`, 'mysql:server']));
    const p = plan({
      application: app('mysql', { relations: rels.map((r) => r.key) }),
      relations: rels,
      counterparts: rels.map((_, i) => app(`app${i}`, { relations: [rels[i]!.key] })),
    });
    expect(p.result).toBe('shedding-relations');
    expect(p.changes.filter((c) => c.op === 'remove' && c.ref.kind === 'relation')).toHaveLength(RELATIONS_PER_TRANSACTION);
    expect(appChange(p.changes)).toEqual({
      op: 'update',
      ref: { kind: 'application', name: 'mysql' },
      removeFromSet: { relations: rels.slice(0, RELATIONS_PER_TRANSACTION).map((r) => r.key) },
      expect: { life: 'alive' },
    });
    expect(p.changes.length).toBeLessThan(25);
  });

  it('never releases one counterpart twice in a transaction (DynamoDB touches an item once)', () => {
    const a = relation(1, ['logging:info', 'mysql:juju-info'], { scope: 'container' });
    const b = relation(2, ['logging:logging-directory', 'mysql:logging-dir'], { scope: 'container' });
    const snapshot: DestroyApplicationSnapshot = {
      application: app('mysql', { relations: [a.key, b.key] }),
      relations: [a, b],
      counterparts: [app('logging', { subordinate: true, relations: [a.key, b.key] })],
    };
    const first = plan(snapshot);
    expect(first.result).toBe('shedding-relations');
    expect(first.changes.filter((c) => c.ref.kind === 'application' && c.ref.name === 'logging')).toHaveLength(1);
    const second = plan({
      application: app('mysql', { relations: [b.key] }),
      relations: [b],
      counterparts: [app('logging', { subordinate: true, relations: [b.key] })],
    });
    expect(second.result).toBe('removed');
  });
});
