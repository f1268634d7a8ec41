import { describe, expect, it } from 'vitest';
import { planEnsureSubordinateDying, type SubordinateDyingSnapshot } from '#shared/domain/plans/subordinate-dying.js';
import { app, relation, unit } from './destruction-fixtures.js';

const container = (id: number, fields = {}) => relation(id, ['logging:info', 'wordpress:juju-info'], { scope: 'container', ...fields });
const snapshot = (fields: Partial<SubordinateDyingSnapshot> = {}): SubordinateDyingSnapshot => ({
  unit: unit('logging/0', { principal: 'wordpress/0' }),
  principal: unit('wordpress/0', { subordinates: ['logging/0'] }),
  application: app('logging', { subordinate: true, relations: ['logging:info wordpress:juju-info'] }),
  relations: [container(1)],
  ...fields,
});

describe('planEnsureSubordinateDying', () => {
  it('keeps a subordinate while an Alive container relation joins it to its principal', () => {
    expect(planEnsureSubordinateDying(snapshot(), { name: 'logging/0' })).toEqual({ changes: [], result: 'still-related' });
  });

  it('"the last Alive relation between its service and its principal\'s service is no longer Alive" → Dying', () => {
    const plan = planEnsureSubordinateDying(snapshot({ relations: [container(1, { life: 'dying' })] }), { name: 'logging/0' });
    expect(plan.result).toBe('dying');
    expect(plan.changes).toEqual([
      { op: 'update', ref: { kind: 'unit', name: 'logging/0' }, set: { life: 'dying' }, expect: { life: 'alive' } },
      { op: 'check', ref: { kind: 'application', name: 'logging' }, expect: { setSize: { relations: 1 } } },
      { op: 'check', ref: { kind: 'relation', key: 'logging:info wordpress:juju-info' }, expect: { life: 'dying' } },
    ]);
  });

  it('a global relation, or a container relation with another principal application, does not keep it', () => {
    const other = relation(2, ['logging:info', 'mysql:juju-info'], { scope: 'container' });
    const global = relation(3, ['logging:logging-client', 'wordpress:url']);
    const plan = planEnsureSubordinateDying(snapshot({ relations: [other, global] }), { name: 'logging/0' });
    expect(plan.result).toBe('dying');
  });

  it('"its principal becomes Dying" → Dying, asserting the principal\'s life', () => {
    const plan = planEnsureSubordinateDying(snapshot({ principal: unit('wordpress/0', { life: 'dying' }) }), { name: 'logging/0' });
    expect(plan.changes).toEqual([
      { op: 'update', ref: { kind: 'unit', name: 'logging/0' }, set: { life: 'dying' }, expect: { life: 'alive' } },
      { op: 'check', ref: { kind: 'unit', name: 'wordpress/0' }, expect: { life: 'dying' } },
    ]);
  });

  it('a subordinate already Dying, or gone, is left as it is', () => {
    expect(
      planEnsureSubordinateDying(snapshot({ unit: unit('logging/0', { principal: 'wordpress/0', life: 'dying' }) }), { name: 'logging/0' })
        .result,
    ).toBe('already-dying');
    expect(planEnsureSubordinateDying({ relations: [] }, { name: 'logging/0' }).result).toBe('gone');
  });

  it('refuses a principal', () => {
    expect(() => planEnsureSubordinateDying(snapshot({ unit: unit('wordpress/0') }), { name: 'wordpress/0' })).toThrow(
      'unit "wordpress/0" is not a subordinate',
    );
  });
});
