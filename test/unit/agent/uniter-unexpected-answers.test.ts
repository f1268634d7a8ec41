// A unit agent never dies of an answer it did not expect (docs/reliability.md, "Defects found by a
// hostile probe"): a 500 that outlasts the API client's retries is logged and the step tried again
// after a back-off, on a fake clock (test/support/in-process-uniter.ts); only an unreachable
// controller restarts the agent.
import { afterEach, expect, it } from 'vitest';
import { AgentApiError } from '../../../agent/api-client.js';
import type { LeadershipView } from '#shared/domain/leadership.js';
import { startInProcessUniter, type InProcessUniter } from '../../support/in-process-uniter.js';
import { app, oneUnitView, UNIT } from './one-unit-view.js';

let agent: InProcessUniter | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

it('a 500 the agent did not expect is retried after a back-off, and the agent goes on once the API answers', async () => {
  let leadership: LeadershipView = { application: 'mysql', claimable: true, settingsVersion: 0 };
  let failures = 3;
  agent = startInProcessUniter({
    unitName: UNIT,
    deployedCharmUrl: app.charmUrl,
    view: () => oneUnitView(leadership),
    answer: (op) => {
      if (op !== 'claim-leadership') return undefined;
      if (failures-- > 0) throw new AgentApiError(500, 'internal', 'internal error in the drover API; the controller log has the details');
      leadership = { application: 'mysql', holder: UNIT, claimable: false, settingsVersion: 0 };
      return { leader: true, holder: UNIT, durationMs: 330_000 };
    },
  });
  await agent.clock.advance(0);
  expect(agent.hooks.map((h) => h.name)).not.toContain('leader-elected');
  await agent.clock.advance(60_000);
  expect(agent.calls.filter((c) => c.op === 'claim-leadership')).toHaveLength(4);
  expect(agent.hooks.map((h) => h.name)).toContain('leader-elected');
  // Still running: stop() resolves with the loop's own outcome, not the 500.
  await expect(agent.stop()).resolves.toBe('stopped');
  agent = undefined;
});
