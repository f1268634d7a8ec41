// A queued task reaches its unit's agent through the existing hint path: the unit item's
// `pendingTasks` changes in the queueing transaction, and that change hints the unit's machine;
// operation and task items hint nobody.
import { describe, expect, it } from 'vitest';
import { planHint } from '#shared/messaging/hint-plan.js';
import { unit } from './plans/relation-fixtures.js';

describe('hints for tasks', () => {
  it("a change of a unit's pendingTasks hints its machine", () => {
    const before = { ...unit('mysql/0', { machine: '3', pendingTasks: [] }) } as Record<string, unknown>;
    const after = { ...before, pendingTasks: ['2'] };
    expect(planHint({ kind: 'unit', oldImage: before, newImage: after })).toEqual({
      kind: 'hint',
      hint: { kind: 'unit', id: 'mysql/0' },
      lookups: [{ kind: 'machines', ids: ['3'] }],
    });
  });

  it('operation and task items hint nobody', () => {
    for (const kind of ['operation', 'task']) {
      expect(planHint({ kind, newImage: { id: '2' } })).toMatchObject({ kind: 'none' });
    }
  });
});
