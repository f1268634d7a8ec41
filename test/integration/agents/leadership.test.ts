// Leadership through real agents (Juju 3.6's contract): one leader per application, which runs
// leader-elected between install and config-changed; the others run leader-settings-changed once
// after install and whenever the leader settings change; only the leader may leader-set; the
// Dying leader resigns, so another unit runs leader-elected soon after remove-unit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApplicationConfig } from '../../../shared/state/application-config.js';
import { destroyUnit } from '../../../shared/state/destroy-unit.js';
import { getLeaderSettings, getLease } from '../../../shared/state/leadership.js';
import { hookLog, hookNames, startAgentHarness, waitFor, type AgentHarness } from '../../support/agents.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(async () => {
  await h?.stop();
});

interface Placed {
  unit: string;
  machine: string;
}

const logOf = (u: Placed) => hookLog(h, u.machine, u.unit);
const logged = (u: Placed, pattern: RegExp, timeoutMs?: number) =>
  waitFor(
    `${u.unit}: ${String(pattern)}`,
    () => logOf(u),
    (l) => l.some((x) => pattern.test(x)),
    timeoutMs,
  );
const unitHooks = (lines: string[]) => hookNames(lines).filter((n) => !n.includes('-relation-'));

async function twoUnits(name: string): Promise<[Placed, Placed]> {
  const app = await h.deployCharm('leader', { name, numUnits: 2 });
  const placed = app.units.map((unit, i) => ({ unit, machine: app.machines[i]! }));
  for (const p of placed) await h.startAgent(p.machine);
  for (const p of placed) await logged(p, /^hook=start /);
  return placed as [Placed, Placed];
}

/** The leader first, as the lease says. */
async function byLeadership(name: string, units: [Placed, Placed]): Promise<[Placed, Placed]> {
  const holder = (await getLease(h.store, name))?.holder;
  expect(units.map((u) => u.unit)).toContain(holder);
  return units[0].unit === holder ? units : [units[1], units[0]];
}

describe('leadership', () => {
  it('elects one leader, which runs leader-elected between install and config-changed; the other runs leader-settings-changed', async () => {
    const [leader, follower] = await byLeadership('lead-a', await twoUnits('lead-a'));
    expect(unitHooks(logOf(leader))).toEqual(['install', 'leader-elected', 'config-changed', 'start']);
    expect(unitHooks(logOf(follower)).slice(0, 2)).toEqual(['install', 'leader-settings-changed']);
    expect(unitHooks(logOf(follower))).not.toContain('leader-elected');
    expect(logOf(leader).find((l) => l.startsWith('hook=leader-elected'))).toMatch(/ leader=True json=true .* shared=yes/);
    // ops's `is-leader --format=json` and the default format, in a follower's hooks.
    expect(logOf(follower).find((l) => l.startsWith('hook=start'))).toContain(' leader=False json=false ');
    const refused = logOf(follower).find((l) => l.startsWith('hook=config-changed'))!;
    expect(refused).toContain('refused=ERROR cannot write leadership settings: cannot write settings: not the leader');
    expect((await getLeaderSettings(h.store, 'lead-a'))?.settings).toEqual({ leader: leader.unit, greeting: 'hello' });
  });

  it('leader-set by the leader runs leader-settings-changed on the other, which reads the new value', async () => {
    const [leader, follower] = await byLeadership('lead-b', await twoUnits('lead-b'));
    await setApplicationConfig(h.store, 'lead-b', { set: { greeting: 'bonjour' } });
    const lines = await logged(follower, /^hook=leader-settings-changed .*"greeting":"bonjour"/);
    expect(lines.at(-1)).toContain(`settings={"greeting":"bonjour","leader":"${leader.unit}"}`);
    await logged(leader, /^hook=config-changed .*"greeting":"bonjour".* shared=yes/);
    // The leader runs no leader-settings-changed for its own writes.
    expect(unitHooks(logOf(leader))).not.toContain('leader-settings-changed');
  });

  it('remove-unit of the leader: it resigns on its way out and the other runs leader-elected', async () => {
    const [leader, follower] = await byLeadership('lead-c', await twoUnits('lead-c'));
    const removedAt = Date.now();
    await destroyUnit(h.store, leader.unit);
    const lines = await logged(follower, /^hook=leader-elected .*leader=True json=true/, 30_000);
    // Well before the lease would have run out by itself.
    expect(Date.now() - removedAt).toBeLessThan(30_000);
    expect(lines.at(-1)).toContain('shared=yes');
    expect((await getLease(h.store, 'lead-c'))?.holder).toBe(follower.unit);
    expect((await getLeaderSettings(h.store, 'lead-c'))?.settings.leader).toBe(follower.unit);
  });
});
