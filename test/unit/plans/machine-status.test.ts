import { describe, expect, it } from 'vitest';
import { planMarkInstanceMissing } from '#shared/domain/plans/machine-status.js';
import { machine, NOW } from './destruction-fixtures.js';

describe('planMarkInstanceMissing', () => {
  it('sets the instance status to error: instance "<id>" missing, asserting the machine still has that instance', () => {
    expect(planMarkInstanceMissing(machine('1', { instanceId: 'i-1' }), 'i-1', NOW)).toEqual({
      changes: [
        {
          op: 'update',
          ref: { kind: 'machine', id: '1' },
          set: { instanceStatus: { current: 'error', message: 'instance "i-1" missing', since: NOW } },
          expect: { equals: { instanceId: 'i-1' } },
        },
      ],
      result: 'marked',
    });
  });

  it('is already done when marked, and does nothing for a machine with another instance or none', () => {
    const marked = machine('1', { instanceId: 'i-1', instanceStatus: { current: 'error', message: 'instance "i-1" missing', since: NOW } });
    expect(planMarkInstanceMissing(marked, 'i-1', NOW)).toEqual({ changes: [], result: 'already-marked' });
    expect(planMarkInstanceMissing(machine('1', { instanceId: 'i-2' }), 'i-1', NOW).result).toBe('not-applicable');
    expect(planMarkInstanceMissing(undefined, 'i-1', NOW).result).toBe('not-applicable');
  });
});
