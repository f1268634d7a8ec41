// When the local controller's supervisor restarts the controller (embedded/controller-supervisor.ts):
// the agents' backoff (shared/provider/local/restart-backoff.ts), a give-up after repeated quick
// deaths, never after a clean stop; on a fake clock and fake processes.
import { describe, expect, it } from 'vitest';
import {
  CONTROLLER_RESTART_POLICY,
  superviseController,
  type ControllerExit,
  type ControllerProcess,
} from '../../embedded/controller-supervisor.js';
import { FakeClock } from '../support/fake-clock.js';

class FakeController implements ControllerProcess {
  readonly signals: NodeJS.Signals[] = [];
  private ready: (() => void)[] = [];
  private exit: ((exit: ControllerExit) => void)[] = [];
  constructor(readonly pid: number) {}
  onReady(listener: () => void) {
    this.ready.push(listener);
  }
  onExit(listener: (exit: ControllerExit) => void) {
    this.exit.push(listener);
  }
  kill(signal: NodeJS.Signals) {
    this.signals.push(signal);
  }
  serves() {
    for (const l of this.ready) l();
  }
  dies(exit: ControllerExit = { code: null, signal: 'SIGKILL' }) {
    for (const l of this.exit) l(exit);
  }
}

function supervised(policy = CONTROLLER_RESTART_POLICY) {
  const clock = new FakeClock();
  const started: FakeController[] = [];
  const said: string[] = [];
  const supervisor = superviseController({
    start: () => {
      const child = new FakeController(100 + started.length);
      started.push(child);
      return child;
    },
    clock,
    log: { info: (m) => said.push(`INFO ${m}`), warn: (m) => said.push(`WARNING ${m}`), error: (m) => said.push(`ERROR ${m}`) },
    logPath: '/data/controller.log',
    restartCommand: 'drover bootstrap local --data-dir /data',
    policy,
  });
  let end: unknown;
  void supervisor.ended.then((e) => (end = e));
  return { clock, started, said, supervisor, ended: () => end, latest: () => started.at(-1)! };
}

describe('the controller supervisor', () => {
  it('restarts a controller that died, at once, and says so and when it is back', async () => {
    const s = supervised();
    s.latest().serves();
    await s.clock.advance(120_000);
    s.latest().dies();
    await s.clock.advance(0);
    expect(s.started).toHaveLength(2);
    expect(s.supervisor.pid()).toBe(101);
    await s.clock.advance(4_000);
    s.latest().serves();
    expect(s.said).toEqual([
      'ERROR the controller (pid 100) stopped unexpectedly (signal SIGKILL); restarting it now on the same data',
      'INFO the controller is back (pid 101), 4.0 s after it died',
    ]);
    expect(s.ended()).toBeUndefined();
  });

  it('backs off as the agents do while it keeps dying soon after starting, then gives up saying how to start it', async () => {
    const s = supervised();
    s.latest().serves();
    const delays: number[] = [];
    for (let death = 1; death < CONTROLLER_RESTART_POLICY.giveUpAfterQuickDeaths; death++) {
      await s.clock.advance(1_000);
      const count = s.started.length;
      s.latest().dies({ code: 1, signal: null });
      let waited = 0;
      while (s.started.length === count) {
        await s.clock.advance(500);
        waited += 500;
      }
      delays.push(waited === 500 ? 0 : waited);
    }
    // The first two at once (started before the first 500 ms step), then 2, 4, 8 s.
    expect(delays).toEqual([0, 0, 2_000, 4_000, 8_000]);
    await s.clock.advance(1_000);
    s.latest().dies({ code: 1, signal: null });
    await s.clock.advance(600_000);
    expect(s.started).toHaveLength(6);
    expect(s.ended()).toEqual({ kind: 'gave-up', quickDeaths: 6 });
    expect(s.said.at(-1)).toBe(
      'ERROR the controller (pid 105) stopped unexpectedly (exit code 1): 6 times in a row, each within 60 s of starting; ' +
        'it is not restarted again. Its log is /data/controller.log; once the cause is fixed, start it again with ' +
        '"drover bootstrap local --data-dir /data"',
    );
  });

  it('counts from zero again after a controller that ran stably', async () => {
    const s = supervised({ ...CONTROLLER_RESTART_POLICY, giveUpAfterQuickDeaths: 3 });
    s.latest().serves();
    for (let i = 0; i < 2; i++) {
      await s.clock.advance(1_000);
      s.latest().dies();
      await s.clock.advance(0);
    }
    s.latest().serves();
    await s.clock.advance(CONTROLLER_RESTART_POLICY.stableRunMs);
    s.latest().dies();
    await s.clock.advance(1_000);
    s.latest().dies();
    await s.clock.advance(0);
    expect(s.started).toHaveLength(5);
    expect(s.ended()).toBeUndefined();
  });

  it('never restarts a controller that stopped cleanly', async () => {
    const s = supervised();
    s.latest().serves();
    s.latest().dies({ code: 0, signal: null });
    await s.clock.advance(600_000);
    expect(s.started).toHaveLength(1);
    expect(s.ended()).toEqual({ kind: 'stopped' });
    expect(s.said).toEqual(['INFO the controller (pid 100) stopped cleanly; it is not restarted']);
  });

  it('does not restart a controller that died before it ever served: its start failed', async () => {
    const s = supervised();
    s.latest().dies({ code: 3, signal: null });
    await s.clock.advance(600_000);
    expect(s.started).toHaveLength(1);
    expect(s.ended()).toEqual({ kind: 'failed-to-start', exit: { code: 3, signal: null } });
  });

  it('asked to stop: SIGTERM, SIGKILL after the grace period, and no restart after its death', async () => {
    const s = supervised();
    const child = s.latest();
    child.serves();
    void s.supervisor.stop();
    expect(child.signals).toEqual(['SIGTERM']);
    await s.clock.advance(CONTROLLER_RESTART_POLICY.stopGraceMs);
    expect(child.signals).toEqual(['SIGTERM', 'SIGKILL']);
    child.dies();
    await s.clock.advance(600_000);
    expect(s.started).toHaveLength(1);
    expect(s.ended()).toEqual({ kind: 'stopped' });
  });

  it('asked to stop while waiting to restart: the restart is cancelled', async () => {
    const s = supervised();
    s.latest().serves();
    for (let i = 0; i < 3; i++) {
      await s.clock.advance(1_000);
      s.latest().dies();
      await s.clock.advance(0);
    }
    // The third quick death waits 2 s.
    expect(s.started).toHaveLength(3);
    await s.supervisor.stop();
    await s.clock.advance(600_000);
    expect(s.started).toHaveLength(3);
    expect(s.ended()).toEqual({ kind: 'stopped' });
  });
});
