// Charm upgrades with real agent processes: charms-in-action.txt "Unit hooks" — "The upgrade-charm
// hook always runs once immediately after the charm directory contents have been changed by an
// unforced charm upgrade operation ... but will not be run after a forced upgrade from an
// existing error state" and "The config-changed hook always runs once immediately after the
// install hook, and likewise after the upgrade-charm hook."
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { parseCharm } from '#shared/domain/charm.js';
import { readStatus } from '#shared/state/queries/status.js';
import { resolveUnit } from '#shared/state/operations/resolve-unit.js';
import { upgradeCharm } from '#shared/state/operations/upgrade-charm.js';
import { CHARMS, hookLog, hookNames, startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(async () => {
  await h?.stop();
});

/** The database charm's second revision: a `db-port` option, an upgrade-charm hook, a VERSION file. */
async function upgradeToV2(application: string, options: { forceUnits?: boolean } = {}) {
  const dir = join(CHARMS, 'database-v2');
  const charm = parseCharm(readFileSync(join(dir, 'metadata.yaml'), 'utf8'), readFileSync(join(dir, 'config.yaml'), 'utf8'));
  const charmArchive = await h.charms.put(await packCharmDir(dir));
  return upgradeCharm(h.store, application, { charm, charmArchive, ...options });
}

const hooksAfterStart = (lines: string[]) => hookNames(lines).slice(hookNames(lines).indexOf('start') + 1);

describe('upgrade-charm', () => {
  it('runs upgrade-charm once, right after the charm directory changed, then config-changed once, which sees the new option', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-up' });
    const [machine, unit] = [machines[0]!, units[0]!];
    const agent = await h.startAgent(machine);
    await waitFor(
      `${unit} idle`,
      () => unitOf(h, unit),
      (u) => u?.agentStatus.current === 'idle' && u.charmUrl === 'local:jammy/database-0',
    );

    expect(await upgradeToV2('db-up')).toEqual({ application: 'db-up', charmUrl: 'local:jammy/database-1' });
    const lines = await waitFor(
      'upgrade-charm and config-changed',
      () => hookLog(h, machine, unit),
      (l) => hooksAfterStart(l).length >= 2,
    );
    expect(hookNames(lines)).toEqual(['install', 'config-changed', 'start', 'upgrade-charm', 'config-changed']);
    // The hooks ran from the new charm's contents (its VERSION file), and config-get sees the new option's default.
    expect(lines[3]).toContain('version=2');
    expect(lines[4]).toContain('db-name=appdb db-port=5433 version=2');
    expect(readFileSync(join(h.unitDir(machine, unit), 'charm', 'VERSION'), 'utf8').trim()).toBe('2');

    // The unit reports the charm it now runs: status shows the new revision and no `upgrading-from`.
    await waitFor(
      'the unit to report its charm',
      () => unitOf(h, unit),
      (u) => u?.charmUrl === 'local:jammy/database-1',
    );
    const status = await readStatus(h.store, { controller: 'agents-test' });
    const app = status.applications['db-up'] as { charm: string; 'charm-rev': number; units: Record<string, Record<string, unknown>> };
    expect(app).toMatchObject({ charm: 'local:database-1', 'charm-rev': 1 });
    expect(app.units[unit]).not.toHaveProperty('upgrading-from');

    // A restart does not upgrade again (config-changed still runs once "when recovering").
    await agent.kill();
    await h.startAgent(machine);
    const after = await waitFor(
      'the recovering config-changed',
      () => hookLog(h, machine, unit),
      (l) => hooksAfterStart(l).length >= 3,
    );
    expect(hooksAfterStart(after)).toEqual(['upgrade-charm', 'config-changed', 'config-changed']);
  });

  it('"will not be run after a forced upgrade from an existing error state", "neither will the config-changed hook"', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-forced' });
    const [machine, unit] = [machines[0]!, units[0]!];
    const gate = join(h.gatesDir(machine), `fail-${unit.replace('/', '-')}-start`);
    writeFileSync(gate, '');
    await h.startAgent(machine);
    await waitFor(
      `${unit} in error`,
      () => unitOf(h, unit),
      (u) => u?.agentStatus.current === 'error',
    );
    const before = hookLog(h, machine, unit);
    expect(hookNames(before)).toEqual(['install', 'config-changed', 'start']);

    await upgradeToV2('db-forced', { forceUnits: true });
    await waitFor('the charm directory to be replaced', () => existsSync(join(h.unitDir(machine, unit), 'charm', 'VERSION')), Boolean);
    await new Promise((r) => setTimeout(r, 1_500)); // any hook the upgrade wrongly started would have logged by now
    expect(hookLog(h, machine, unit)).toEqual(before);
    expect((await unitOf(h, unit))?.agentStatus).toMatchObject({ current: 'error', message: 'hook failed: "start"' });

    // Resolved, the failed hook runs again, from the new charm; upgrade-charm never runs.
    rmSync(gate);
    await resolveUnit(h.store, unit, 'retry-hooks');
    const lines = await waitFor(
      'start to succeed',
      () => hookLog(h, machine, unit),
      (l) => l.some((x) => x.startsWith('hook=start') && !x.includes('failed=yes')),
    );
    expect(hookNames(lines)).not.toContain('upgrade-charm');
  });
});
