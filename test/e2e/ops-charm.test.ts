// The whole charm contract at once, as docs/juju-compat.md names this test: a charm packed as
// `charmcraft pack` packs an ops charm (a zip holding
// dispatch, src/charm.py, venv/, manifest.yaml bases, no hooks/) deploys on the real local
// controller, elects a leader, relates through application data both ways, fails over when its
// leader is removed, and runs an action. test/charms/ops-shaped's small framework makes the ops
// framework's exact hook tool calls and records each as a JSON line; the assertions read those.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { charmDir, spawnCli } from '../support/cli.js';

interface OpsRecord {
  kind: 'dispatch' | 'call' | 'remote-app-data';
  event: string;
  env?: Record<string, string>;
  cmd?: string[];
  rc?: number;
  stderr?: string;
  app?: string;
  data?: Record<string, string>;
  remote_unit?: string;
}

/** Zips a charm directory as charmcraft does: paths relative to the root, modes kept. */
function packDotCharm(dir: string, out: string): void {
  const script = [
    'import os, sys, zipfile',
    'root, out = sys.argv[1], sys.argv[2]',
    'with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:',
    '    for d, _, files in os.walk(root):',
    '        for f in files:',
    '            p = os.path.join(d, f)',
    '            if "__pycache__" not in p: z.write(p, os.path.relpath(p, root))',
  ].join('\n');
  execFileSync('python3', ['-c', script, dir, out]);
}

/** Every unit's records, by unit name, read from the local provider's machine directories. */
function opsRecords(dataDir: string): Map<string, OpsRecord[]> {
  const byUnit = new Map<string, OpsRecord[]>();
  const machines = join(dataDir, 'machines');
  for (const machine of existsSync(machines) ? readdirSync(machines) : []) {
    const units = join(machines, machine, 'units');
    for (const unit of existsSync(units) ? readdirSync(units) : []) {
      const file = join(units, unit, 'ops-record.jsonl');
      if (!existsSync(file)) continue;
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      // The last line may be half-written while a hook runs.
      const records = lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as OpsRecord];
        } catch {
          return [];
        }
      });
      byUnit.set(unit.replace(/-(\d+)$/, '/$1'), records);
    }
  }
  return byUnit;
}

const events = (records: OpsRecord[] = []) => records.filter((r) => r.kind === 'dispatch').map((r) => r.event);

describe('an ops charm packed by charmcraft, on the local controller', () => {
  it('deploys, elects a leader, relates through application data, fails over and runs an action', { timeout: 420_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'drover-ops-charm-'));
    const dataDir = join(home, 'controller');
    const env = { DROVER_HOME: home };
    const cli = (...args: string[]) => spawnCli(args, env);
    const drover = async (...args: string[]) => {
      const res = await cli(...args);
      expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
      return res;
    };
    const status = async () =>
      JSON.parse((await drover('status', '--format', 'json')).stdout) as {
        applications: Record<
          string,
          { 'application-status'?: { message?: string }; version?: string; units?: Record<string, { leader?: boolean }> }
        >;
      };
    const leaderOf = async (app: string) => {
      const units = (await status()).applications[app]?.units ?? {};
      const leaders = Object.entries(units).filter(([, u]) => u.leader === true);
      return leaders.length === 1 ? leaders[0]![0] : undefined;
    };
    try {
      await drover('bootstrap', 'local', '--data-dir', dataDir);
      const charm = join(home, 'ops-shaped_ubuntu-22.04-amd64.charm');
      packDotCharm(charmDir('ops-shaped'), charm);
      await drover('deploy', charm, 'front', '-n', '2');
      await drover('deploy', charm, 'back');
      await drover('relate', 'front:backend', 'back:db');

      // Dispatch: every hook reached src/charm.py through ./dispatch, in Juju's order.
      const started = await waitFor(
        'all three units to start',
        () => opsRecords(dataDir),
        (r) => ['front/0', 'front/1', 'back/0'].every((u) => events(r.get(u)).includes('start')),
        240_000,
      );
      for (const [unit, records] of started) {
        const install = records.find((r) => r.kind === 'dispatch' && r.event === 'install')!;
        expect(install.env).toMatchObject({
          JUJU_DISPATCH_PATH: 'hooks/install',
          JUJU_HOOK_NAME: 'install',
          JUJU_UNIT_NAME: unit,
          JUJU_MODEL_NAME: 'default',
          JUJU_VERSION: expect.stringMatching(/^3\.6\.\d+$/),
          JUJU_MODEL_UUID: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        });
        const first = events(records).filter((e) =>
          ['install', 'leader_elected', 'leader_settings_changed', 'config_changed', 'start'].includes(e),
        );
        expect(first.slice(0, 1)).toEqual(['install']);
        expect(first.indexOf('config_changed')).toBeLessThan(first.indexOf('start'));
        // No tool call ops made failed (is-leader, config-get, status-set, juju-log, relation-*).
        expect(records.filter((r) => r.kind === 'call' && r.rc !== 0)).toEqual([]);
      }

      // One leader, marked in status; it ran leader-elected and set the application's status.
      const leader = await waitFor(
        'front to have one leader',
        () => leaderOf('front'),
        (l) => l !== undefined,
      );
      const follower = leader === 'front/0' ? 'front/1' : 'front/0';
      expect(events(opsRecords(dataDir).get(leader!))).toContain('leader_elected');
      await waitFor(
        'the leader to set the application status and version',
        () => status(),
        (s) => s.applications.front?.['application-status']?.message === 'front ready' && s.applications.front?.version === '1.0.0',
      );

      // Application data both ways across the relation, and in the peer relation.
      const appData = (unit: string, from: string) =>
        (opsRecords(dataDir).get(unit) ?? []).filter((r) => r.kind === 'remote-app-data' && r.app === from).map((r) => r.data?.greeting);
      await waitFor(
        'back/0 to read front’s application data',
        () => appData('back/0', 'front'),
        (g) => g.includes('hello from front'),
      );
      for (const unit of ['front/0', 'front/1']) {
        await waitFor(
          `${unit} to read back’s application data`,
          () => appData(unit, 'back'),
          (g) => g.includes('hello from back'),
        );
      }
      await waitFor(
        `${follower} to read its peers’ application data`,
        () => appData(follower, 'front'),
        (g) => g.includes('hello from front'),
      );

      // A change of application data alone fires -relation-changed with JUJU_REMOTE_APP and no unit.
      await drover('config', 'back', 'greeting=howdy');
      const changed = await waitFor(
        `${follower} to see back's new greeting`,
        () =>
          (opsRecords(dataDir).get(follower) ?? []).filter((r) => r.kind === 'remote-app-data' && r.data?.greeting === 'howdy from back'),
        (r) => r.length > 0,
      );
      expect(changed[0]!.remote_unit).toBe('');

      // A non-leader may not write its application's data: Juju's error, nothing changes.
      const rid = JSON.parse(
        (await drover('exec', '--unit', follower, '--', 'relation-ids', 'backend', '--format=json')).stdout.trim(),
      ) as string[];
      const refused = await cli('exec', '--unit', follower, '--', 'relation-set', '-r', rid[0]!, '--app', 'greeting=usurped');
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toContain('cannot write relation settings'); // Juju's words
      expect(appData('back/0', 'front')).not.toContain('usurped');

      // An action with good params, a failing one, and params the schema refuses.
      const greeted = await drover('run', leader!, 'greet', 'name=bob');
      expect(greeted.stdout).toContain('hello from front to bob');
      const failed = await cli('run', leader!, 'greet', 'name=bob', 'fail=true');
      expect(failed.stdout + failed.stderr).toContain('asked to fail greeting bob');
      // Params the schema refuses schedule no task: Juju 3.6 says so on stderr and exits 0.
      const bad = await cli('run', leader!, 'greet');
      expect(bad.code).toBe(0);
      expect(bad.stderr).toMatch(/failed to schedule any tasks/);
      expect(bad.stderr).toMatch(/name/);

      // Failover: remove the leader's unit; the other unit is elected and runs leader-elected.
      await drover('remove-unit', leader!);
      await waitFor(
        'the follower to be elected',
        () => events(opsRecords(dataDir).get(follower)),
        (e) => e.includes('leader_elected'),
        120_000,
      );
      await waitFor(
        'status to mark the new leader',
        () => leaderOf('front'),
        (l) => l === follower,
        60_000,
      );
    } finally {
      await cli('kill-controller', 'local', '-y');
      await rm(home, { recursive: true, force: true });
    }
  });
});
