// Leadership failover and renewal through real agents, with a short lease (a few seconds, the
// controller's setting) and the controller's periodic sweep: a leader whose machine agent is
// killed stops renewing, its lease runs out, the sweep frees it and the other unit runs
// leader-elected within the lease plus a sweep interval (Juju's "within about a minute of the
// lease running out"). That a live idle leader renews, lease after lease, is only time: it runs on
// a fake clock (test/unit/agent/uniter-on-clock.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLease } from '#shared/state/queries/leadership.js';
import { hookLog, hookNames, startAgentHarness, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

const LEASE_SECONDS = 4;
const SWEEP_MS = 500;
/** Hints, the new leader's view refresh and claim, and its hook: a few seconds on a busy host. */
const SLACK_MS = 15_000;

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness({ leadershipLeaseSeconds: LEASE_SECONDS, sweepMs: SWEEP_MS });
});
afterAll(async () => {
  await h?.stop();
});

interface Placed {
  unit: string;
  machine: string;
}

const logOf = (u: Placed) => hookLog(h, u.machine, u.unit);
const hooksOf = (u: Placed) => hookNames(logOf(u));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two started units, the leader first, and each one's agent process. */
async function twoUnits(name: string) {
  const app = await h.deployCharm('leader', { name, numUnits: 2 });
  const placed = app.units.map((unit, i) => ({ unit, machine: app.machines[i]! }));
  const agents = new Map<string, Awaited<ReturnType<AgentHarness['startAgent']>>>();
  for (const p of placed) agents.set(p.unit, await h.startAgent(p.machine));
  for (const p of placed)
    await waitFor(
      `${p.unit} started`,
      () => hooksOf(p),
      (hooks) => hooks.includes('start'),
      60_000,
    );
  const holder = (await getLease(h.store, name))?.holder;
  const leader = placed.find((p) => p.unit === holder)!;
  const follower = placed.find((p) => p.unit !== holder)!;
  expect(leader).toBeDefined();
  expect(hooksOf(leader)).toContain('leader-elected');
  return { leader, follower, agentOf: (p: Placed) => agents.get(p.unit)! };
}

// Leases run their real length here: a busy CI host stretches every wait, and nothing is timed
// against this bound, which only ends a run that hangs.
describe('lease renewal and failover', { timeout: 120_000 }, () => {
  it('a killed leader agent is replaced within lease + sweep + slack, never before its lease runs out, and leads no more when it returns', async () => {
    const { leader, follower, agentOf } = await twoUnits('renew-b');
    const killedAt = Date.now();
    await agentOf(leader).kill();
    // A renewal in flight when it died may still land: read the lease the dead leader left.
    await sleep(300);
    const abandoned = (await getLease(h.store, 'renew-b'))!;
    expect(abandoned.holder).toBe(leader.unit);
    await waitFor(
      `${follower.unit} elected`,
      () => hooksOf(follower),
      (hooks) => hooks.includes('leader-elected'),
      LEASE_SECONDS * 1000 + SWEEP_MS + SLACK_MS,
    );
    const electedAt = Date.now();
    expect(electedAt - killedAt).toBeLessThan(LEASE_SECONDS * 1000 + SWEEP_MS + SLACK_MS);
    const taken = (await getLease(h.store, 'renew-b'))!;
    expect(taken.holder).toBe(follower.unit);
    // The new lease was written after the dead leader's ran out (same clock: the controller's).
    expect(Date.parse(taken.expiresAt) - LEASE_SECONDS * 1000).toBeGreaterThanOrEqual(Date.parse(abandoned.expiresAt));

    // The old leader's agent comes back: it is leader no more (one leader at a time), and its
    // recovery config-changed finds is-leader False and its leader-set refused.
    const configChanges = () => logOf(leader).filter((l) => l.startsWith('hook=config-changed'));
    const before = configChanges().length;
    await h.startAgent(leader.machine);
    await waitFor(`${leader.unit} recovered`, configChanges, (lines) => lines.length > before, 30_000);
    expect(configChanges().at(-1)).toContain(' leader=False json=false ');
    expect(configChanges().at(-1)).toContain('refused=ERROR cannot write leadership settings: cannot write settings: not the leader');
    expect((await getLease(h.store, 'renew-b'))?.holder).toBe(follower.unit);
  });
});
