import { describe, expect, it } from 'vitest';
import type { RelationSettings } from '#shared/domain/entities.js';
import { applySettingsChanges, planWriteSettings } from '#shared/domain/plans/relation-settings.js';

const current: RelationSettings = { relationId: 4, unit: 'riak/0', settings: { 'private-address': '10.0.0.1', a: '1' }, version: 3 };
const target = { relationId: 4, unit: 'riak/0', relationLabel: 'riak:ring' };

describe('applySettingsChanges', () => {
  it.each<{ changes: Record<string, string>; expected: Record<string, string> }>([
    { changes: { b: '2' }, expected: { 'private-address': '10.0.0.1', a: '1', b: '2' } },
    { changes: { a: '9' }, expected: { 'private-address': '10.0.0.1', a: '9' } },
    { changes: { a: '' }, expected: { 'private-address': '10.0.0.1' } },
    { changes: { missing: '' }, expected: { 'private-address': '10.0.0.1', a: '1' } },
  ])('$changes', ({ changes, expected }) => {
    expect(applySettingsChanges(current.settings, changes)).toEqual(expected);
  });
});

describe('planWriteSettings', () => {
  it('writes a change with the next version, asserting the version read', () => {
    expect(planWriteSettings(current, target, { a: '2' })).toEqual({
      changes: [
        {
          op: 'update',
          ref: { kind: 'settings', relationId: 4, unit: 'riak/0' },
          set: { settings: { 'private-address': '10.0.0.1', a: '2' }, version: 4 },
          expect: { equals: { version: 3 } },
        },
      ],
      result: { settings: { 'private-address': '10.0.0.1', a: '2' }, version: 4 },
    });
  });

  it.each<Record<string, string>>([{ a: '1' }, { missing: '' }, {}])(
    '"a null setting change can be safely ignored": %j writes nothing',
    (changes) => {
      expect(planWriteSettings(current, target, changes)).toEqual({ changes: [], result: { settings: current.settings, version: 3 } });
    },
  );

  it('refuses a unit without settings', () => {
    expect(() => planWriteSettings(undefined, target, { a: '1' })).toThrow(
      'cannot write settings for unit "riak/0" in relation "riak:ring": unit "riak/0": settings not found',
    );
  });
});
