import { describe, expect, it } from 'vitest';
import { planEnsureUnitDead } from '#shared/domain/plans/unit-dead.js';
import { unit } from './destruction-fixtures.js';

describe('planEnsureUnitDead', () => {
  it.each(['alive', 'dying'] as const)('sets a %s unit with no subordinates and no scopes Dead', (life) => {
    expect(planEnsureUnitDead({ unit: unit('wordpress/0', { life }) })).toEqual({
      changes: [
        {
          op: 'update',
          ref: { kind: 'unit', name: 'wordpress/0' },
          set: { life: 'dead' },
          expect: { life, setSize: { subordinates: 0, scopes: 0, storageAttachments: 0 } },
        },
      ],
      result: 'dead',
    });
  });

  it.each([
    ['while any unit subordinate to it exists', { subordinates: ['logging/0'] }, 'unit has subordinates'],
    [
      'while the unit is in scope for any relation',
      { scopes: ['riak:ring', 'wordpress:db mysql:server'] },
      'unit "wordpress/0" is still in scope of relations: "riak:ring", "wordpress:db mysql:server"',
    ],
    // The storage contract: "a unit cannot become Dead while it has attachments that are not Dead".
    ['while it has storage attached', { storageAttachments: ['data/0'] }, 'unit "wordpress/0" still has storage attached: "data/0"'],
  ])('"may not become Dead %s"', (_, fields, message) => {
    expect(() => planEnsureUnitDead({ unit: unit('wordpress/0', { life: 'dying', ...fields }) })).toThrow(message);
  });

  it('a Dead or removed unit is left as it is', () => {
    expect(planEnsureUnitDead({ unit: unit('wordpress/0', { life: 'dead' }) })).toEqual({ changes: [], result: 'already-dead' });
    expect(planEnsureUnitDead({})).toEqual({ changes: [], result: 'already-dead' });
  });
});
