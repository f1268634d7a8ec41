import { describe, expect, it } from 'vitest';
import type { Application, Model, Relation } from '#shared/domain/entities.js';
import { isDroverError, type ErrorCode } from '#shared/domain/errors.js';
import { planAddRelation } from '#shared/domain/plans/add-relation.js';
import { sequentialNumbers } from '#shared/domain/sequences.js';
import { application, linked, NOW, relation } from './relation-fixtures.js';

const WP_DB = 'wordpress:db mysql:server';
const MODEL: Model = { name: 'default', life: 'alive', constraints: {}, defaultSeries: 'jammy', constraintsVersion: 0 };
const plan = (applications: Application[], relations: Relation[], args: string[], nextRelation = 3) =>
  planAddRelation({ model: MODEL, applications, relations, numbers: sequentialNumbers({ relation: nextRelation }) }, args, NOW);

describe('planAddRelation', () => {
  it('creates the relation with the next number of the sequence, and adds it to both applications', () => {
    const p = plan([application('wordpress'), application('mysql')], [], ['wordpress', 'mysql']);
    expect(p.result).toEqual({ key: WP_DB, id: 3, pending: [] });
    expect(p.changes).toEqual([
      {
        op: 'create',
        ref: { kind: 'relation', key: WP_DB },
        value: expect.objectContaining({ key: WP_DB, id: 3, life: 'alive', scope: 'global', unitCount: 0, createdAt: NOW }),
      },
      // wordpress:db has a limit, so its relation set size is asserted; mysql's is not needed. Both
      // assert the charm the endpoints were inferred from.
      {
        op: 'update',
        ref: { kind: 'application', name: 'wordpress' },
        addToSet: { relations: [WP_DB] },
        expect: { life: 'alive', lacks: { relations: WP_DB }, equals: { charmUrl: 'local:jammy/wordpress-0' }, setSize: { relations: 0 } },
      },
      {
        op: 'update',
        ref: { kind: 'application', name: 'mysql' },
        addToSet: { relations: [WP_DB] },
        expect: { life: 'alive', lacks: { relations: WP_DB }, equals: { charmUrl: 'local:jammy/mysql-0' } },
      },
      // Nothing new in a model being destroyed.
      { op: 'check', ref: { kind: 'model' }, expect: { life: 'alive' } },
    ]);
  });

  it('a Dying model refuses it: cannot add relation "…": model "<name>" is dying', () => {
    expect(() =>
      planAddRelation(
        { model: { ...MODEL, life: 'dying' }, applications: [wp, mysql], relations: [], numbers: sequentialNumbers() },
        ['wordpress', 'mysql'],
        NOW,
      ),
    ).toThrow(`cannot add relation "${WP_DB}": model "default" is dying`);
  });

  const wp = application('wordpress');
  const mysql = application('mysql');
  const mariadb = application('mariadb');
  const existing = relation([wp, mysql], ['wordpress', 'mysql'], 1);
  const refusals: { name: string; apps: Application[]; relations: Relation[]; args: string[]; message: string; code: ErrorCode }[] = [
    {
      name: 'a duplicate',
      apps: linked([wp, mysql], [existing]),
      relations: [existing],
      args: ['mysql', 'wordpress'],
      message: `cannot add relation "${WP_DB}": relation ${WP_DB}`,
      code: 'already-exists',
    },
    {
      name: 'a duplicate of a Dying relation',
      apps: linked([wp, mysql], [existing]),
      relations: [{ ...existing, life: 'dying' }],
      args: ['wordpress', 'mysql'],
      message: `cannot add relation "${WP_DB}": relation ${WP_DB} is dying, but not yet removed`,
      code: 'already-exists',
    },
    {
      name: 'a Dying application',
      apps: [{ ...wp, life: 'dying' }, mysql],
      relations: [],
      args: ['wordpress', 'mysql'],
      message: `cannot add relation "${WP_DB}": application "wordpress" is not alive`,
      code: 'not-alive',
    },
    {
      name: 'an endpoint at its limit',
      apps: [...linked([wp, mysql], [existing]), mariadb],
      relations: [existing],
      args: ['wordpress', 'mariadb'],
      message:
        'cannot add relation "wordpress:db mariadb:server": establishing a new relation for wordpress:db would exceed its maximum relation limit of 1',
      code: 'quota-exceeded',
    },
    {
      name: 'an endpoint at its limit with a Dying relation',
      apps: [...linked([wp, mysql], [existing]), mariadb],
      relations: [{ ...existing, life: 'dying' }],
      args: ['wordpress', 'mariadb'],
      message:
        'cannot add relation "wordpress:db mariadb:server": establishing a new relation for wordpress:db would exceed its maximum relation limit of 1',
      code: 'quota-exceeded',
    },
    {
      name: 'an unknown application',
      apps: [wp],
      relations: [],
      args: ['wordpress', 'mysql'],
      message: 'application "mysql" not found',
      code: 'not-found',
    },
  ];
  it.each(refusals)('refuses $name', ({ apps, relations, args, message, code }) => {
    let error: unknown;
    try {
      plan(apps, relations, args);
    } catch (e) {
      error = e;
    }
    expect((error as Error | undefined)?.message).toBe(message);
    expect(isDroverError(error, code)).toBe(true);
  });

  it('counts only relations on the limited endpoint', () => {
    const varnish = application('varnish');
    const cache = relation([wp, varnish], ['wordpress', 'varnish'], 1);
    const p = plan([...linked([wp, varnish], [cache]), mysql], [cache], ['wordpress', 'mysql']);
    expect(p.result.key).toBe(WP_DB);
  });

  it('required relations: schedules assigning the units once the last required relation is added', () => {
    const p = plan([application('blog', { unitCount: 2 }), mysql], [], ['blog', 'mysql']);
    expect(p.result.pending).toEqual([]);
    expect(p.changes).toContainEqual({
      op: 'create',
      ref: { kind: 'cleanup', id: 'assignUnits:blog:3' },
      value: { id: 'assignUnits:blog:3', kind: 'assignUnits', target: 'blog', createdAt: NOW },
    });
    // The pending requirements were read from blog's relation set.
    expect(p.changes).toContainEqual(
      expect.objectContaining({
        ref: { kind: 'application', name: 'blog' },
        expect: expect.objectContaining({ setSize: { relations: 0 } }),
      }),
    );
  });

  it('required relations: reports what still holds an application back, and schedules nothing', () => {
    const p = plan([application('metrics-agent'), wp], [], ['wordpress', 'metrics-agent']);
    expect(p.result.pending).toEqual(['application "metrics-agent" will be deployed when its required relations are added: store (mysql)']);
    expect(p.changes.some((c) => c.ref.kind === 'cleanup')).toBe(false);
  });

  it('an application with no pending requirements schedules nothing', () => {
    const p = plan([wp, mysql], [], ['wordpress', 'mysql']);
    expect(p.changes.some((c) => c.ref.kind === 'cleanup')).toBe(false);
  });

  it('takes the container scope for a principal and a subordinate', () => {
    const p = plan([wp, application('logging')], [], ['wordpress', 'logging']);
    expect(p.result.key).toBe('logging:logging-directory wordpress:logging-dir');
    expect(p.changes[0]).toMatchObject({ op: 'create', value: { scope: 'container' } });
  });

  it('stays under the transaction bound', () => {
    const p = plan([application('blog', { unitCount: 2 }), mysql], [], ['blog', 'mysql']);
    expect(p.changes.length).toBeLessThan(25);
  });
});
