// The secret hooks of one unit agent where only time and state drive them, on a fake clock
// (test/support/in-process-uniter.ts): the owner's leader runs secret-rotate when the secret's
// nextRotateTime comes, with no hint and no user action, and tells the controller after; a
// consumer runs secret-changed once for a new revision, with Juju's JUJU_SECRET_* variables.
import { afterEach, describe, expect, it } from 'vitest';
import type { LeadershipView } from '#shared/domain/leadership.js';
import type { UnitSecretHookState } from '#shared/domain/secret-hooks.js';
import { startInProcessUniter, type InProcessUniter } from '../../support/in-process-uniter.js';
import { app, oneUnitView, UNIT } from './one-unit-view.js';

const URI = 'secret:cu5ff0d8kgbs73a1opb0';
const HOUR = 3_600_000;

let agent: InProcessUniter | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

const secretHooks = (a: InProcessUniter) => a.hooks.filter((h) => h.name.startsWith('secret-'));
const follower: LeadershipView = { application: 'mysql', holder: 'mysql/1', claimable: false, settingsVersion: 0 };

describe('secret hooks on the unit agent’s clock', () => {
  it('the leader runs secret-rotate when nextRotateTime comes, then the controller moves the schedule on', async () => {
    const leader: LeadershipView = { application: 'mysql', holder: UNIT, claimable: false, settingsVersion: 0 };
    let rotateAt = '';
    const state = (): UnitSecretHookState => ({
      owned: [
        { uri: URI, label: 'creds', latestRevision: 1, nextRotateTime: rotateAt, revisions: [{ revision: 1 }], trackedRevisions: [1] },
      ],
      consumed: [],
    });
    agent = startInProcessUniter({
      unitName: UNIT,
      deployedCharmUrl: app.charmUrl,
      view: () => oneUnitView(leader),
      answer: (op, body) => {
        if (op === 'claim-leadership') return { leader: true, holder: UNIT, durationMs: 24 * HOUR };
        if (op === 'secret-hook-state') return state();
        // The controller's part (planSecretRotated): no new revision, so again after Juju's retry delay.
        if (op === 'secret-rotated') rotateAt = new Date(Date.parse((body as { rotateTime: string }).rotateTime) + 300_000).toISOString();
        return undefined;
      },
    });
    const start = agent.clock.now();
    rotateAt = new Date(start + HOUR).toISOString();
    await agent.clock.advance(0);
    expect(secretHooks(agent)).toEqual([]);

    await agent.clock.advance(HOUR - 1);
    expect(secretHooks(agent)).toEqual([]);
    await agent.clock.advance(1);
    const [rotate] = secretHooks(agent);
    expect(rotate).toMatchObject({ name: 'secret-rotate', at: start + HOUR, env: { JUJU_SECRET_ID: URI, JUJU_SECRET_LABEL: 'creds' } });
    expect(rotate!.env).not.toHaveProperty('JUJU_SECRET_REVISION');
    const rotated = agent.calls.filter((c) => c.op === 'secret-rotated');
    expect(rotated.map((c) => c.body)).toEqual([
      { unit: UNIT, secret: URI, rotateTime: new Date(start + HOUR).toISOString(), originalRevision: 1 },
    ]);
    // Once per due time: the next run is at the time the controller moved it to.
    await agent.clock.advance(300_000 - 1);
    expect(secretHooks(agent)).toHaveLength(1);
    await agent.clock.advance(1);
    expect(secretHooks(agent).map((h) => h.at)).toEqual([start + HOUR, start + HOUR + 300_000]);
  });

  it('a consumer runs secret-changed once for a newer revision, with its label and the revision, and records it', async () => {
    let state: UnitSecretHookState = { owned: [], consumed: [] };
    agent = startInProcessUniter({
      unitName: UNIT,
      deployedCharmUrl: app.charmUrl,
      view: () => oneUnitView(follower),
      answer: (op) => (op === 'secret-hook-state' ? state : undefined),
    });
    await agent.clock.advance(0);
    expect(agent.hooks.map((h) => h.name)).toEqual(['install', 'leader-settings-changed', 'config-changed', 'start']);

    // The owner made revision 2; the secret's record hints this machine.
    state = { owned: [], consumed: [{ uri: URI, label: 'db', latestRevision: 2, trackedRevision: 1 }] };
    agent.uniter.secretsChanged();
    await agent.clock.advance(0);
    expect(secretHooks(agent)).toEqual([
      {
        name: 'secret-changed',
        at: expect.any(Number),
        env: expect.objectContaining({ JUJU_SECRET_ID: URI, JUJU_SECRET_LABEL: 'db', JUJU_SECRET_REVISION: '2' }),
      },
    ]);
    expect(agent.calls.filter((c) => c.op === 'secret-revision-seen').map((c) => c.body)).toEqual([
      { unit: UNIT, secret: URI, revision: 2 },
    ]);

    // Hinted again with nothing new: it does not run twice.
    agent.uniter.secretsChanged();
    await agent.clock.advance(60_000);
    expect(secretHooks(agent)).toHaveLength(1);
  });

  it('costs no request while no secret concerns it: its secrets are read once after install, then only when hinted', async () => {
    agent = startInProcessUniter({ unitName: UNIT, deployedCharmUrl: app.charmUrl, view: () => oneUnitView(follower) });
    await agent.clock.advance(0);
    await agent.clock.advance(HOUR);
    expect(agent.calls.filter((c) => c.op === 'secret-hook-state')).toHaveLength(1);
  });
});
