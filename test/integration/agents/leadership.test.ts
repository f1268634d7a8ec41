// Leadership through real agents (Juju 3.6's contract): one leader per application, which runs
// leader-elected between install and config-changed; the others run leader-settings-changed once
// after install and whenever the leader settings change; only the leader may leader-set; the
// Dying leader resigns, so another unit runs leader-elected soon after remove-unit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refs } from '#shared/domain/plan.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { getItem, getRelation } from '#shared/state/engine/reads.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { getLeaderSettings, getLease } from '#shared/state/queries/leadership.js';
import { hookLog, hookNames, startAgentHarness, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

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
/**
 * Each test starts two to four agent processes and waits for their hooks: on a CI host whose two
 * cores run the rest of the suite too, that took up to 30 s (7 s when idle). No test here times anything.
 */
const AGENTS_TIMEOUT = { timeout: 120_000 };
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

describe('leadership', AGENTS_TIMEOUT, () => {
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
    // The hook logs before it exits; its leader-set is committed after.
    await waitFor(
      'leader settings written by the new leader',
      () => getLeaderSettings(h.store, 'lead-c'),
      (s) => s?.settings.leader === follower.unit,
    );
  });
});

describe('application data bags', AGENTS_TIMEOUT, () => {
  it('each leader writes its application’s bag, the other side runs -changed with JUJU_REMOTE_APP and no remote unit; a non-leader is refused', async () => {
    const [pLeader, pFollower] = await byLeadership('bag-p', await twoUnits('bag-p'));
    const q = await h.deployCharm('leader', { name: 'bag-q' });
    const qUnit = { unit: q.units[0]!, machine: q.machines[0]! };
    await h.startAgent(qUnit.machine);
    await logged(qUnit, /^hook=start /);
    await addRelation(h.store, ['bag-q:source', 'bag-p:info']);

    // bag-q's only unit leads it: its bag reaches both bag-p units, as an application -changed.
    for (const u of [pLeader, pFollower]) {
      const lines = await logged(u, /^hook=info-relation-changed .* remote-unit= remote-app=bag-q remote-bag=\{"from":"bag-q"\}/);
      expect(lines.filter((l) => /^hook=info-relation-changed .* remote-unit= /.test(l))).toHaveLength(1);
    }
    const qLines = await logged(qUnit, /^hook=source-relation-changed .* remote-unit= remote-app=bag-p remote-bag=\{"from":"bag-p"\}/);
    // relation-created first (Juju ≥ 2.8), with the remote application and no remote unit.
    expect(hookNames(qLines).filter((n) => n.startsWith('source-relation-'))[0]).toBe('source-relation-created');
    expect(qLines.find((l) => l.startsWith('hook=source-relation-created'))).toContain(' remote-unit= remote-app=bag-p ');
    // The leader reads its own application's bag.
    expect(qLines.at(-1)).toContain('own-bag={"from":"bag-q"}');
    // The follower may neither write its application's bag nor read it (not a peer relation).
    const refused = (await logged(pFollower, /^hook=info-relation-joined /)).find((l) => l.startsWith('hook=info-relation-joined'))!;
    expect(refused).toContain('app-refused=ERROR cannot write relation settings');
    const followerChanged = logOf(pFollower).find((l) => /^hook=info-relation-changed .* remote-unit= /.test(l))!;
    expect(followerChanged).toContain('own-bag=ERROR permission denied');
    const bag = await getItem<{ settings: Record<string, string> }>(
      h.store,
      refs.appSettings(await relationId('bag-q:source bag-p:info'), 'bag-p'),
    );
    expect(bag?.settings).toEqual({ from: 'bag-p' });
  });

  it('in a peer relation every unit reads the bag; only the others run -changed for the leader’s write', async () => {
    const [leader, follower] = await byLeadership('bag-r', await twoUnits('bag-r'));
    const lines = await logged(follower, /^hook=cluster-relation-changed .* remote-unit= remote-app=bag-r remote-bag=\{"from":"bag-r"\}/);
    expect(lines.find((l) => /^hook=cluster-relation-changed .* remote-unit= /.test(l))).toContain('own-bag={"from":"bag-r"}');
    expect(logOf(follower).find((l) => l.startsWith('hook=cluster-relation-joined'))).toContain(
      'app-refused=ERROR cannot write relation settings',
    );
    await logged(leader, /^hook=cluster-relation-changed .* remote-unit=bag-r\//);
    expect(logOf(leader).filter((l) => /^hook=cluster-relation-changed .* remote-unit= /.test(l))).toEqual([]);
  });
});

async function relationId(key: string): Promise<number> {
  const relation = await getRelation(h.store, key);
  if (!relation) throw new Error(`relation ${key} not found`);
  return relation.id;
}
