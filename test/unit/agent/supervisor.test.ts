// "restarts its unit agents if they die" (issue 4, machine agent).
import { describe, expect, it } from 'vitest';
import { AgentLog } from '../../../agent/log/agent-log.js';
import { UniterSupervisor } from '../../../agent/machine/supervisor.js';
import type { Uniter, UniterOutcome } from '../../../agent/uniter/uniter.js';

function fakeUniter(run: () => Promise<UniterOutcome>): Uniter {
  return { run, stop: () => undefined, poke: () => undefined } as unknown as Uniter;
}

describe('UniterSupervisor', () => {
  it('starts a unit agent that died again, and leaves one that finished alone', async () => {
    const runs: string[] = [];
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    const log = new AgentLog('0', undefined, () => undefined);
    const supervisor = new UniterSupervisor(
      () =>
        fakeUniter(async () => {
          runs.push('run');
          if (runs.length === 1) throw new Error('API unreachable');
          finish();
          return 'done';
        }),
      log,
    );
    supervisor.start('mysql/0');
    await finished;
    expect(runs).toEqual(['run', 'run']);
    await supervisor.stop('mysql/0');
    expect(supervisor.has('mysql/0')).toBe(false);
  });

  it('stops a unit agent waiting to be restarted at once', async () => {
    const log = new AgentLog('0', undefined, () => undefined);
    const supervisor = new UniterSupervisor(() => fakeUniter(async () => Promise.reject(new Error('boom'))), log);
    supervisor.start('mysql/0');
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    await supervisor.stop('mysql/0');
    expect(Date.now() - started).toBeLessThan(500);
  });
});
