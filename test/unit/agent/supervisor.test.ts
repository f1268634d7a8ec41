// "restarts its unit agents if they die" (the machine agent: docs/agents.md).
import { describe, expect, it } from 'vitest';
import { AgentLog } from '../../../agent/log/agent-log.js';
import { UniterSupervisor } from '../../../agent/machine/supervisor.js';
import type { Uniter, UniterOutcome } from '../../../agent/uniter/uniter.js';
import { FakeClock } from '../../support/fake-clock.js';

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
    const clock = new FakeClock();
    const log = new AgentLog('0', undefined, () => undefined, clock);
    const supervisor = new UniterSupervisor(() => fakeUniter(async () => Promise.reject(new Error('boom'))), log, clock);
    supervisor.start('mysql/0');
    await clock.advance(0);
    expect(clock.pending).toBe(1); // the restart delay
    let stopped = false;
    void supervisor.stop('mysql/0').then(() => (stopped = true));
    await clock.advance(0); // no time passes
    expect(stopped).toBe(true);
  });

  describe('retryNow (the controller is reachable again)', () => {
    /** A unit agent whose runs fail or hang as the test says; `runs` counts its starts. */
    function scripted() {
      const outcomes: ((value: UniterOutcome | Error) => void)[] = [];
      let runs = 0;
      const lines: string[] = [];
      const clock = new FakeClock();
      const supervisor = new UniterSupervisor(
        () =>
          fakeUniter(() => {
            runs++;
            return new Promise<UniterOutcome>((resolve, reject) => outcomes.push((v) => (v instanceof Error ? reject(v) : resolve(v))));
          }),
        new AgentLog('0', undefined, (line) => lines.push(line), clock),
        clock,
      );
      const settle = async () => {
        for (let i = 0; i < 10; i++) await Promise.resolve();
      };
      return { supervisor, outcomes, lines, runs: () => runs, settle, clock };
    }

    it('starts a unit agent waiting out its restart delay at once', async () => {
      const { supervisor, outcomes, lines, runs, settle } = scripted();
      supervisor.start('mysql/0');
      await settle();
      outcomes[0]!(new Error('fetch failed'));
      await settle();
      expect(lines.some((l) => l.includes('restarting in 1000 ms'))).toBe(true);
      expect(runs()).toBe(1);
      // No time passes: only retryNow can start it again.
      supervisor.retryNow();
      await settle();
      expect(runs()).toBe(2);
      outcomes[1]!('done');
      await supervisor.stop('mysql/0');
    });

    it('does not cut short a later restart delay when called while the unit agent runs', async () => {
      const { supervisor, outcomes, runs, settle, clock } = scripted();
      supervisor.start('mysql/0');
      await settle();
      supervisor.retryNow();
      outcomes[0]!(new Error('fetch failed'));
      await settle();
      expect(runs()).toBe(1);
      await clock.advance(999);
      expect(runs()).toBe(1);
      await clock.advance(1);
      expect(runs()).toBe(2);
      outcomes[1]!('done');
      await supervisor.stop('mysql/0');
    });
  });
});
