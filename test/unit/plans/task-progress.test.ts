// A task's steps on its agent (shared/domain/plans/task-progress.ts): each asserts the status it
// read, a retry after the step is done changes nothing, and the item stays bounded.
import { describe, expect, it } from 'vitest';
import type { Task } from '#shared/domain/operations.js';
import { MAX_TASK_LOG_BYTES, planCancelTask, planFinishTask, planLogTask, planStartTask } from '#shared/domain/plans/task-progress.js';
import { NOW } from './relation-fixtures.js';

const task = (fields: Partial<Task> = {}): Task => ({
  id: '2',
  operation: '1',
  unit: 'mysql/0',
  action: 'backup',
  parameters: {},
  status: 'pending',
  log: [],
  enqueued: NOW,
  expiresAt: 0,
  ...fields,
});

describe('task steps', () => {
  it('start asserts pending; a started task is answered as it is', () => {
    expect(planStartTask(task(), '2', NOW).changes).toEqual([
      { op: 'update', ref: { kind: 'task', id: '2' }, set: { status: 'running', started: NOW }, expect: { equals: { status: 'pending' } } },
    ]);
    expect(planStartTask(task({ status: 'cancelled' }), '2', NOW)).toEqual({ changes: [], result: task({ status: 'cancelled' }) });
  });

  it('log asserts the log it replaces, and keeps the latest lines within the bound', () => {
    const running = task({ status: 'running', logCount: 3, log: [{ timestamp: NOW, message: 'a' }] });
    expect(planLogTask(running, '2', { timestamp: NOW, message: 'b' }).changes[0]).toMatchObject({
      set: { logCount: 4, log: [{ message: 'a' }, { message: 'b' }] },
      expect: { equals: { status: 'running', logCount: 3 } },
    });
    const big = 'x'.repeat(MAX_TASK_LOG_BYTES / 4);
    let t = task({ status: 'running' });
    for (let i = 0; i < 8; i++) {
      const change = planLogTask(t, '2', { timestamp: NOW, message: `${i}${big}` }).changes[0] as unknown as {
        set: Pick<Task, 'log' | 'logCount'>;
      };
      t = { ...t, ...change.set };
    }
    expect(Buffer.byteLength(JSON.stringify(t.log))).toBeLessThanOrEqual(MAX_TASK_LOG_BYTES);
    expect(t.log.at(-1)?.message.startsWith('7')).toBe(true);
    expect(() => planLogTask(task({ status: 'completed' }), '2', { timestamp: NOW, message: 'late' })).toThrow('task 2 is not running');
  });

  it('finish asserts the status it read and takes the task off its unit; a finished task is left alone', () => {
    const plan = planFinishTask(task({ status: 'running' }), '2', { status: 'failed', message: 'no', results: {} }, true, NOW);
    expect(plan.changes).toContainEqual({ op: 'update', ref: { kind: 'unit', name: 'mysql/0' }, removeFromSet: { pendingTasks: ['2'] } });
    expect(plan.changes[0]).toMatchObject({ set: { status: 'failed', message: 'no' }, expect: { equals: { status: 'running' } } });
    expect(planFinishTask(task({ status: 'completed' }), '2', { status: 'failed', results: {} }, true, NOW).changes).toEqual([]);
  });

  it('cancel takes only a pending task', () => {
    expect(planCancelTask(task(), '2', true, NOW).result.status).toBe('cancelled');
    expect(() => planCancelTask(task({ status: 'running' }), '2', true, NOW)).toThrow(
      'task 2 is running; drover cannot abort a running task',
    );
  });
});
