// Relations through the agents: charms-in-action.txt "Relation hooks", "Relations in depth",
// "Departing relations"; subordinates (lifecycles.txt: a principal's agent deploys its
// subordinates); and the sandbox ("changes made by a failing hook will be discarded and never
// observed by any other part of the system").
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { getApplication, getRelation, getSettings } from '#shared/state/engine/reads.js';
import { resolveUnit } from '#shared/state/operations/resolve-unit.js';
import { hookLog, hookNames, startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(async () => {
  await h?.stop();
});

const started = (machine: string, unit: string) =>
  waitFor(
    `${unit} started`,
    () => hookLog(h, machine, unit),
    (l) => hookNames(l).includes('start'),
  );
const logged = (machine: string, unit: string, pattern: RegExp, what = String(pattern)) =>
  waitFor(
    `${unit}: ${what}`,
    () => hookLog(h, machine, unit),
    (l) => l.some((x) => pattern.test(x)),
  );
const relationHooks = (lines: string[]) => hookNames(lines).filter((n) => n.includes('-relation-'));

async function pair(suffix: string) {
  const db = await h.deployCharm('database', { name: `db-${suffix}` });
  const client = await h.deployCharm('client', { name: `client-${suffix}` });
  const d = { machine: db.machines[0]!, unit: db.units[0]! };
  const c = { machine: client.machines[0]!, unit: client.units[0]! };
  await h.startAgent(d.machine);
  await h.startAgent(c.machine);
  await started(d.machine, d.unit);
  await started(c.machine, c.unit);
  return { d, c, names: [`client-${suffix}`, `db-${suffix}`] };
}

describe('a relation between two applications', () => {
  it('runs -joined then -changed on both sides, and the data each side set arrives', async () => {
    const { d, c, names } = await pair('a');
    const { id } = await addRelation(h.store, names);
    const clientSaw = await logged(c.machine, c.unit, /hook=db-relation-changed .*database=appdb host=127\.0\.0\.1 password=pw-db-a-0/);
    const dbSaw = await logged(d.machine, d.unit, /hook=db-relation-changed .*client-name=client-a\/0/);
    expect(relationHooks(clientSaw).slice(0, 2)).toEqual(['db-relation-joined', 'db-relation-changed']);
    expect(relationHooks(dbSaw).slice(0, 2)).toEqual(['db-relation-joined', 'db-relation-changed']);
    const joined = dbSaw.find((l) => l.startsWith('hook=db-relation-joined'))!;
    expect(joined).toContain(`rel=db:${id} remote=${c.unit} ids=db:${id},`);
    expect(clientSaw.find((l) => l.startsWith('hook=db-relation-changed'))).toContain('app=db-a');
  });

  it('remove-relation: each side runs -departed for the other, then -broken, and the relation is removed', async () => {
    const { d, c, names } = await pair('b');
    const { key } = await addRelation(h.store, names);
    await logged(d.machine, d.unit, /hook=db-relation-changed .*client-name=client-b\/0/);
    await logged(c.machine, c.unit, /hook=db-relation-changed .*database=appdb/);
    await destroyRelation(h.store, names);
    const dbLines = await logged(d.machine, d.unit, /hook=db-relation-broken/);
    const clientLines = await logged(c.machine, c.unit, /hook=db-relation-broken/);
    for (const lines of [dbLines, clientLines])
      expect(relationHooks(lines).slice(-2)).toEqual(['db-relation-departed', 'db-relation-broken']);
    expect(dbLines.find((l) => l.startsWith('hook=db-relation-departed'))).toContain(`remote=${c.unit} members= departing=${c.unit}`);
    await waitFor(
      'relation removed',
      () => getRelation(h.store, key),
      (r) => r === undefined,
    );
  });

  it("a failing hook's relation-set is never seen by the other side; after resolved the hook succeeds", async () => {
    const db = await h.deployCharm('database', { name: 'db-c' });
    const client = await h.deployCharm('client', { name: 'client-c' });
    const d = { machine: db.machines[0]!, unit: db.units[0]! };
    const c = { machine: client.machines[0]!, unit: client.units[0]! };
    writeFileSync(join(h.gatesDir(c.machine), 'fail-db-relation-changed'), '');
    await h.startAgent(d.machine);
    await h.startAgent(c.machine);
    await started(d.machine, d.unit);
    await started(c.machine, c.unit);
    const { id } = await addRelation(h.store, ['client-c', 'db-c']);
    const failed = await waitFor(
      'client error',
      () => unitOf(h, c.unit),
      (u) => u?.agentStatus.current === 'error',
    );
    expect(failed?.agentStatus).toMatchObject({
      message: 'hook failed: "db-relation-changed"',
      data: { hook: 'db-relation-changed', 'relation-id': id, 'remote-unit': d.unit },
    });
    // The hook ran relation-set leaked=yes before failing: never written.
    expect((await getSettings(h.store, id, c.unit))?.settings).toEqual({ 'private-address': '127.0.0.1', 'client-name': c.unit });
    rmSync(join(h.gatesDir(c.machine), 'fail-db-relation-changed'));
    await resolveUnit(h.store, c.unit, 'retry-hooks');
    await logged(c.machine, c.unit, /hook=db-relation-changed .*database=appdb/);
    expect((await getSettings(h.store, id, c.unit))?.settings).not.toHaveProperty('leaked');
    const dbLines = hookLog(h, d.machine, d.unit).filter((l) => l.startsWith('hook=db-relation-changed'));
    expect(dbLines.every((l) => l.includes('leaked= '))).toBe(true);
  });

  it('remove-application: its units depart, stop, and are removed; the application goes with the last', async () => {
    const { d, c, names } = await pair('d');
    await addRelation(h.store, names);
    await logged(d.machine, d.unit, /hook=db-relation-changed .*client-name=client-d\/0/);
    await destroyApplication(h.store, 'client-d');
    await waitFor(
      'client unit removed',
      () => unitOf(h, c.unit),
      (u) => u === undefined,
    );
    await waitFor(
      'client application removed',
      () => getApplication(h.store, 'client-d'),
      (a) => a === undefined,
    );
    expect(relationHooks(await logged(d.machine, d.unit, /hook=db-relation-broken/)).slice(-2)).toEqual([
      'db-relation-departed',
      'db-relation-broken',
    ]);
  });
});

describe('a subordinate', () => {
  it("is deployed on its principal's machine when related, and both sides see each other", async () => {
    const db = await h.deployCharm('database', { name: 'db-s' });
    await h.deployCharm('sidecar');
    const machine = db.machines[0]!;
    await h.startAgent(machine);
    await started(machine, db.units[0]!);
    await addRelation(h.store, ['sidecar', 'db-s']);
    const principal = await waitFor(
      'subordinate',
      () => unitOf(h, 'db-s/0'),
      (u) => (u?.subordinates.length ?? 0) > 0,
    );
    const sub = principal!.subordinates[0]!;
    expect((await unitOf(h, sub))?.machine).toBe(machine);
    const lines = await logged(machine, sub, /hook=host-relation-changed .*address=127\.0\.0\.1/);
    expect(hookNames(lines)).toEqual(['install', 'config-changed', 'start', 'host-relation-joined', 'host-relation-changed']);
    expect(lines.find((l) => l.startsWith('hook=host-relation-joined'))).toContain(`remote=db-s/0 principal=db-s/0`);
    await logged(machine, 'db-s/0', new RegExp(`hook=juju-info-relation-changed .*remote=${sub.replace('/', '\\/')}`));
  });

  it('is removed by its principal once the relation is removed', async () => {
    const db = await h.deployCharm('database', { name: 'db-t' });
    await h.deployCharm('sidecar', { name: 'sidecar-t' });
    const machine = db.machines[0]!;
    await h.startAgent(machine);
    await started(machine, db.units[0]!);
    await addRelation(h.store, ['sidecar-t', 'db-t']);
    const principal = await waitFor(
      'subordinate',
      () => unitOf(h, 'db-t/0'),
      (u) => (u?.subordinates.length ?? 0) > 0,
    );
    const sub = principal!.subordinates[0]!;
    await logged(machine, sub, /hook=host-relation-changed/);
    await destroyRelation(h.store, ['sidecar-t', 'db-t']);
    await waitFor(
      'subordinate removed',
      () => unitOf(h, sub),
      (u) => u === undefined,
    );
    await waitFor(
      'principal has none',
      () => unitOf(h, 'db-t/0'),
      (u) => u?.subordinates.length === 0,
    );
    expect(relationHooks(hookLog(h, machine, 'db-t/0')).slice(-2)).toEqual(['juju-info-relation-departed', 'juju-info-relation-broken']);
  });
  it('goes with its principal: remove-unit of the principal removes both, and the emptied machine goes Dead', async () => {
    const db = await h.deployCharm('database', { name: 'db-u' });
    await h.deployCharm('sidecar', { name: 'sidecar-u' });
    const machine = db.machines[0]!;
    const agent = await h.startAgent(machine);
    await started(machine, db.units[0]!);
    await addRelation(h.store, ['sidecar-u', 'db-u']);
    const principal = await waitFor(
      'subordinate',
      () => unitOf(h, 'db-u/0'),
      (u) => (u?.subordinates.length ?? 0) > 0,
    );
    const sub = principal!.subordinates[0]!;
    await logged(machine, sub, /hook=host-relation-changed/);
    await destroyUnit(h.store, 'db-u/0');
    await waitFor(
      'subordinate removed',
      () => unitOf(h, sub),
      (u) => u === undefined,
    );
    await waitFor(
      'principal removed',
      () => unitOf(h, 'db-u/0'),
      (u) => u === undefined,
    );
    // The agent ships its log lines asynchronously: the unit can be gone before its last line lands.
    const ranHooks = async () =>
      (await h.logs.read({ include: [sub], limit: 1000 })).records.map((r) => /^ran "(\S+)" hook/.exec(r.message)?.[1]).filter(Boolean);
    const ran = await waitFor('the stop hook in the log', ranHooks, (hooks) => hooks.includes('stop'));
    expect(ran.slice(-3)).toEqual(['host-relation-departed', 'host-relation-broken', 'stop']);
    await destroyMachine(h.store, machine);
    expect(await agent.exited).toBe(0);
  });
});

describe('a peer relation', () => {
  it('each peer runs -joined and -changed for the other and reads what it set', async () => {
    const peers = await h.deployCharm('peer', { numUnits: 2 });
    for (const m of peers.machines) await h.startAgent(m);
    const [m0, m1] = peers.machines as [string, string];
    const [u0, u1] = peers.units as [string, string];
    await logged(m0, u0, new RegExp(`hook=ring-relation-changed .*peer-me=${u1.replace('/', '\\/')}`));
    await logged(m1, u1, new RegExp(`hook=ring-relation-changed .*peer-me=${u0.replace('/', '\\/')}`));
  });

  it('remove-unit: the leaving peer runs -departed then stop, never -broken (Juju 3.6), and goes away', async () => {
    const peers = await h.deployCharm('peer', { name: 'ring-b', numUnits: 2 });
    for (const m of peers.machines) await h.startAgent(m);
    const [m0, m1] = peers.machines as [string, string];
    const [u0, u1] = peers.units as [string, string];
    await logged(m1, u1, new RegExp(`hook=ring-relation-changed .*peer-me=${u0.replace('/', '\\/')}`));
    await destroyUnit(h.store, u1);
    await waitFor(
      'the leaving peer removed',
      () => unitOf(h, u1),
      (u) => u === undefined,
    );
    const ranHooks = async () =>
      (await h.logs.read({ include: [u1], limit: 1000 })).records.map((r) => /^ran "(\S+)" hook/.exec(r.message)?.[1]).filter(Boolean);
    const ran = await waitFor('the stop hook in the log', ranHooks, (hooks) => hooks.includes('stop'));
    expect(ran.slice(-2)).toEqual(['ring-relation-departed', 'stop']);
    expect(ran).not.toContain('ring-relation-broken');
    // The peer that stays sees it depart.
    await logged(m0, u0, /hook=ring-relation-departed/);
  });
});
