// Charm file resources on the real local controller: `deploy --resource` uploads a file, the
// unit's install hook finds it with resource-get at <unit dir>/resources/<name>/<filename> (the
// charm directory's parent, as Juju places it), and a declared resource never uploaded fails;
// `attach-resource` uploads a new revision, every unit runs upgrade-charm, and resource-get there
// hands it the new file. test/charms/resourceful records what its hooks find.
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { charmDir, spawnCli } from '../support/cli.js';

/** The lines resourceful's hooks wrote on the unit's machine, or none yet. */
function resourceLog(dataDir: string, unit: string): string[] {
  const machines = join(dataDir, 'machines');
  for (const machine of existsSync(machines) ? readdirSync(machines) : []) {
    const file = join(machines, machine, 'units', unit.replace('/', '-'), 'resource-log');
    if (existsSync(file)) return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  }
  return [];
}

describe('file resources on the local controller', () => {
  it(
    'deploy --resource, resource-get in install, attach-resource, upgrade-charm with the new file, and resources',
    { timeout: 300_000 },
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'drover-resources-'));
      const dataDir = join(home, 'controller');
      const cli = (...args: string[]) => spawnCli(args, { DROVER_HOME: home });
      const drover = async (...args: string[]) => {
        const res = await cli(...args);
        expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
        return res;
      };
      const first = join(home, 'first.txt');
      const second = join(home, 'second.txt');
      writeFileSync(first, 'first revision');
      writeFileSync(second, 'second revision');
      try {
        await drover('bootstrap', 'local', '--data-dir', dataDir);

        // Refused before anything is uploaded or deployed: an undeclared name, a missing file.
        const undeclared = await cli('deploy', charmDir('resourceful'), '--resource', `nope=${first}`);
        expect(undeclared.stderr).toBe('ERROR unrecognized resource "nope"\n');
        const missingFile = await cli('deploy', charmDir('resourceful'), '--resource', `payload=${join(home, 'absent')}`);
        expect(missingFile.stderr).toBe(`ERROR resource "payload": file "${join(home, 'absent')}" not found\n`);
        expect((await drover('status', '--format', 'json')).stdout).not.toContain('resourceful');

        await drover('deploy', charmDir('resourceful'), '--resource', `payload=${first}`);
        const installed = await waitFor(
          'install to record the resource',
          // Its storage's hook runs first and records a line of its own (test/e2e/charmhub-agents.test.ts).
          () => resourceLog(dataDir, 'resourceful/0').filter((l) => l.startsWith('hook=install')),
          (lines) => lines.length >= 2,
          240_000,
        );
        const path = /path=(\S+)/.exec(installed[0]!)?.[1];
        expect(installed[0]).toBe(`hook=install payload-rc=0 path=${path} content=first revision`);
        expect(path).toMatch(/\/units\/resourceful-0\/resources\/payload\/payload\.txt$/);
        expect(installed[1]).toMatch(
          /^hook=install missing-rc=1 output=ERROR could not download resource: resource#resourceful\/missing not found/,
        );

        const listed = await drover('resources', 'resourceful');
        expect(listed.stdout).toMatch(
          /^Resource  Supplied by  Revision\nmissing   upload       -\npayload   admin        \d{4}-\d\d-\d\dT\d\d:\d\d\n$/,
        );

        await drover('attach-resource', 'resourceful', `payload=${second}`);
        const upgraded = await waitFor(
          'upgrade-charm to record the new revision',
          () => resourceLog(dataDir, 'resourceful/0'),
          (lines) => lines.some((l) => l.startsWith('hook=upgrade-charm payload-rc=0')),
          120_000,
        );
        expect(upgraded.find((l) => l.startsWith('hook=upgrade-charm payload-rc'))).toBe(
          `hook=upgrade-charm payload-rc=0 path=${path} content=second revision`,
        );
        const yaml = await drover('resources', 'resourceful', '--format', 'json');
        const resources = (JSON.parse(yaml.stdout) as { resources: { name: string; revision: string; size: number; used: boolean }[] })
          .resources;
        expect(resources.map((r) => [r.name, r.revision, r.used, r.size])).toEqual([
          ['missing', '-', false, 0],
          ['payload', '2', true, 'second revision'.length],
        ]);
      } finally {
        await cli('kill-controller', 'local', '-y');
        await rm(home, { recursive: true, force: true });
      }
    },
  );
});
