// The unit agent where only time drives it, on a fake clock (test/support/in-process-uniter.ts):
// a leader renews its lease before its own view of it runs out, lease after lease; update-status
// runs on its jittered interval at no request of its own, and a model-config change of the
// interval takes effect at once.
// Hours of agent time take milliseconds; nothing sleeps.
import { afterEach, describe, expect, it } from 'vitest';
import { LEASE_MARGIN_MS, LEASE_RENEW_BEFORE_MS, type LeadershipView } from '#shared/domain/leadership.js';
import { startInProcessUniter, type InProcessUniter } from '../../support/in-process-uniter.js';
import { app, oneUnitView, UNIT } from './one-unit-view.js';

const LEASE_MS = 330_000;

let agent: InProcessUniter | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

const claims = (a: InProcessUniter) => a.calls.filter((c) => c.op === 'claim-leadership').map((c) => c.at);
const hookTimes = (a: InProcessUniter, name: string) => a.hooks.filter((h) => h.name === name).map((h) => h.at);
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('a unit agent on a fake clock', () => {
  it('a live idle leader renews its lease 45 s before its own view of it runs out, lease after lease; leader-elected runs once', async () => {
    let leadership: LeadershipView = { application: 'mysql', claimable: true, settingsVersion: 0 };
    agent = startInProcessUniter({
      unitName: UNIT,
      deployedCharmUrl: app.charmUrl,
      view: () => oneUnitView(leadership),
      answer: (op) => {
        if (op !== 'claim-leadership') return undefined;
        leadership = { application: 'mysql', holder: UNIT, claimable: false, settingsVersion: 0 };
        return { leader: true, holder: UNIT, durationMs: LEASE_MS };
      },
    });
    const start = agent.clock.now();
    await agent.clock.advance(0);
    expect(hookTimes(agent, 'leader-elected')).toEqual([start]);
    await agent.clock.advance(4 * LEASE_MS);
    const renewEvery = LEASE_MS - LEASE_MARGIN_MS - LEASE_RENEW_BEFORE_MS;
    expect(claims(agent)[0]).toBe(start);
    expect(gaps(claims(agent))).toEqual([renewEvery, renewEvery, renewEvery, renewEvery]);
    expect(hookTimes(agent, 'leader-elected')).toHaveLength(1);
  });

  it('runs update-status every 80% to 120% of its interval at no request of its own, and a new interval takes effect at once', async () => {
    const follower: LeadershipView = { application: 'mysql', holder: 'mysql/1', claimable: false, settingsVersion: 0 };
    let modelConfig: Record<string, string> = {};
    agent = startInProcessUniter({ unitName: UNIT, deployedCharmUrl: app.charmUrl, view: () => oneUnitView(follower, modelConfig) });
    const start = agent.clock.now();
    await agent.clock.advance(0);
    // A follower learns of the leader settings once, after install (decide-leadership.ts).
    expect(agent.hooks.map((h) => h.name)).toEqual(['install', 'leader-settings-changed', 'config-changed', 'start']);
    await agent.clock.advance(10_000); // its first report goes
    const settled = agent.calls.length;
    await agent.clock.advance(60 * 60_000);
    // Routine: an hour of update-status costs no request of its own.
    expect(agent.calls.slice(settled)).toEqual([]);
    const updates = hookTimes(agent, 'update-status');
    expect(updates.length).toBeGreaterThanOrEqual(10); // an hour of 4 to 6 minutes each
    for (const gap of gaps([start, ...updates])) {
      expect(gap).toBeGreaterThanOrEqual(240_000);
      expect(gap).toBeLessThanOrEqual(360_000);
    }

    // A model-config change: the next read of the view brings it, and the timer starts again.
    modelConfig = { 'update-status-hook-interval': '60m' };
    await agent.view.refresh();
    agent.uniter.poke();
    const changedAt = agent.clock.now();
    await agent.clock.advance(0);
    await agent.clock.advance(47 * 60_000);
    expect(hookTimes(agent, 'update-status').filter((t) => t > changedAt)).toEqual([]);
    await agent.clock.advance(26 * 60_000);
    expect(hookTimes(agent, 'update-status').filter((t) => t > changedAt)).toHaveLength(1);
  });

  it('stops at once however long its timers still had to run', async () => {
    const follower: LeadershipView = { application: 'mysql', holder: 'mysql/1', claimable: false, settingsVersion: 0 };
    const started = startInProcessUniter({ unitName: UNIT, deployedCharmUrl: app.charmUrl, view: () => oneUnitView(follower) });
    await started.clock.advance(0);
    expect(await started.stop()).toBe('stopped');
  });
});
