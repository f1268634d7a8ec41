// Queueing an operation (shared/domain/plans/enqueue-operation.ts): ids as Juju 3's, one
// transaction, and every refusal before anything is written.
import { describe, expect, it } from 'vitest';
import { parseActions } from '#shared/domain/actions.js';
import { DroverError, errorMessage } from '#shared/domain/errors.js';
import { planEnqueueOperation, type EnqueueSnapshot } from '#shared/domain/plans/enqueue-operation.js';
import { sequentialNumbers } from '#shared/domain/sequences.js';
import { application, NOW, unit } from './relation-fixtures.js';

const mysql = application('mysql');
mysql.charm = { ...mysql.charm, actions: parseActions('mysql', 'backup:\n  params:\n    target: {type: string, default: /srv}\n') };
const snapshot = (fields: Partial<EnqueueSnapshot> = {}): EnqueueSnapshot => ({
  units: [unit('mysql/0'), unit('mysql/1')],
  applications: [mysql],
  numbers: sequentialNumbers(),
  ...fields,
});
const intent = { action: 'backup', parameters: {}, units: ['mysql/0', 'mysql/1'] };

describe('planEnqueueOperation', () => {
  it('takes the operation id and then one task id per unit from the task sequence: operation 1, tasks 2 and 3', () => {
    const plan = planEnqueueOperation(snapshot(), intent, NOW);
    expect(plan.result).toEqual({
      operation: '1',
      tasks: [
        { id: '2', unit: 'mysql/0' },
        { id: '3', unit: 'mysql/1' },
      ],
    });
    // The ids were reserved before the transaction: it does not touch the sequence.
    expect(plan.changes.filter((c) => c.ref.kind === 'sequence')).toEqual([]);
    const task = plan.changes.find((c) => c.op === 'create' && c.ref.kind === 'task');
    expect(task).toMatchObject({ value: { status: 'pending', parameters: { target: '/srv' }, unit: 'mysql/0', operation: '1' } });
    const op = plan.changes.find((c) => c.op === 'create' && c.ref.kind === 'operation');
    expect(op).toMatchObject({ value: { summary: 'backup run on unit-mysql-0,unit-mysql-1', tasks: ['2', '3'] } });
    expect(plan.changes).toContainEqual({
      op: 'update',
      ref: { kind: 'unit', name: 'mysql/1' },
      addToSet: { pendingTasks: ['3'] },
      expect: { life: ['alive', 'dying'] },
    });
  });

  it('continues the sequence from the numbers reserved for it', () => {
    const plan = planEnqueueOperation(snapshot({ numbers: sequentialNumbers({ task: 3 }) }), { ...intent, units: ['mysql/0'] }, NOW);
    expect(plan.result).toEqual({ operation: '4', tasks: [{ id: '5', unit: 'mysql/0' }] });
  });

  it.each([
    ['an undefined action', { action: 'restore' }, {}, 'action "restore" not defined on unit "mysql/0"'],
    [
      'params failing the schema',
      { parameters: { target: 3 } },
      {},
      'validation failed: target : Invalid type. Expected: string, given: integer',
    ],
    ['an unknown unit', {}, { units: [unit('mysql/0'), undefined] }, 'unit "mysql/1" not found'],
    [
      'parameters too large',
      { action: 'juju-exec', parameters: { command: 'x'.repeat(40_000), timeout: 1 } },
      {},
      'parameters too large: at most 32 KiB of JSON',
    ],
    ['a dead unit', {}, { units: [unit('mysql/0', { life: 'dead' }), unit('mysql/1')] }, 'unit "mysql/0" not found'],
  ] as const)('refuses %s', (_, change, snap, message) => {
    let error: unknown;
    try {
      planEnqueueOperation(snapshot(snap as Partial<EnqueueSnapshot>), { ...intent, ...change }, NOW);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DroverError);
    expect(errorMessage(error)).toBe(message);
  });
});
