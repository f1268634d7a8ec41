// `drover exec`'s plain output, as Juju 3.6's printExecOutput writes it
// (https://github.com/juju/juju/blob/3.6/cmd/juju/action/exec.go): each receiver's stdout then
// stderr, both on stdout, each ending in a newline; several receivers in natural order, each
// under `<receiver>:` and followed by a blank line.
import { describe, expect, it } from 'vitest';
import type { Task } from '#shared/domain/operations.js';
import { checkExecTargets, plainExecOutput } from '../../../cli/commands/exec.js';

const task = (unit: string, results: Task['results']): Task => ({ id: '1', unit, results }) as Task;
const byUnit = (t: Task) => t.unit;

describe('exec plain output', () => {
  it("prints one receiver's stdout then stderr, each ending in a newline, with no header", () => {
    expect(plainExecOutput([task('box/0', { 'return-code': 3, stdout: 'out', stderr: 'err\n' })], byUnit)).toBe('out\nerr\n');
    expect(plainExecOutput([task('box/0', { 'return-code': 0 })], byUnit)).toBe('');
  });

  it('prints several receivers in natural order, each under its name and followed by a blank line', () => {
    const tasks = [task('box/10', { stdout: 'ten\n' }), task('box/2', { stdout: 'two\n', stderr: 'warn' }), task('box/9', {})];
    expect(plainExecOutput(tasks, byUnit)).toBe('box/2:\ntwo\nwarn\n\nbox/9:\n\nbox/10:\nten\n\n');
  });

  it('names a machine receiver as the caller maps it', () => {
    const tasks = [task('box/0', { stdout: 'a\n' }), task('db/0', { stdout: 'b\n' })];
    const machineOf: Record<string, string> = { 'box/0': '1', 'db/0': '0' };
    expect(plainExecOutput(tasks, (t) => machineOf[t.unit]!)).toBe('0:\nb\n\n1:\na\n\n');
  });
});

describe('exec targets', () => {
  it("refuses what Juju's Init refuses, in its words", () => {
    expect(() => checkExecTargets({ units: [], applications: [], machines: [], all: false })).toThrow(
      'You must specify a target, either through --all, --machine, --application or --unit',
    );
    expect(() => checkExecTargets({ units: ['box/leader'], applications: ['box'], machines: ['0'], all: false })).not.toThrow();
  });
});
