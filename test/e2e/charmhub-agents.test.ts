// A charm from Charmhub on the real local controller, the store being the local Charmhub-API
// server (test/support/charmhub-server.ts), given at bootstrap as the model default: deploy by
// name and channel fetches the charm and its file resource (checked against Charmhub's SHA-384);
// its filesystem storage is attached before install (data-storage-attached runs first, and reads
// it as ops's self.model.storages does); install reads the resource with resource-get, as ops's
// self.model.resources.fetch does; and refresh to the channel's next revision runs upgrade-charm,
// which reads the resource revision that came with it. test/charms/resourceful records what its
// hooks find.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { startCharmhubServer } from '../support/charmhub-server.js';
import { charmDir, spawnCli } from '../support/cli.js';
import { packDotCharm } from '../support/dot-charm.js';

/** The lines resourceful's hooks wrote on the unit's machine, in any model, or none yet. */
function resourceLog(dataDir: string, unit: string): string[] {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : []);
  const machineDirs = [
    ...list(join(dataDir, 'machines')),
    ...list(join(dataDir, 'models')).flatMap((model) => list(join(model, 'machines'))),
  ];
  for (const machine of machineDirs) {
    const file = join(machine, 'units', unit.replace('/', '-'), 'resource-log');
    if (existsSync(file)) return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  }
  return [];
}

describe('a Charmhub charm on the local controller', () => {
  it(
    'deploys by name and channel with its store resource, and refresh runs upgrade-charm with the next revision',
    { timeout: 300_000 },
    async () => {
      const file = packDotCharm(charmDir('resourceful'));
      const payload = (revision: number) => ({
        name: 'payload',
        revision,
        filename: 'payload.txt',
        content: Buffer.from(`store revision ${revision}`),
      });
      const hub = await startCharmhubServer([
        {
          name: 'resourceful',
          revisions: [
            { revision: 1, file, bases: ['ubuntu@22.04'], channels: ['latest/stable'], resources: [payload(1)] },
            { revision: 2, file, bases: ['ubuntu@22.04'], channels: ['latest/edge'], resources: [payload(2)] },
          ],
        },
      ]);
      const home = mkdtempSync(join(tmpdir(), 'drover-charmhub-'));
      const dataDir = join(home, 'controller');
      const cli = (...args: string[]) => spawnCli(args, { DROVER_HOME: home });
      const drover = async (...args: string[]) => {
        const res = await cli(...args);
        expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
        return res;
      };
      try {
        // The controller's model default points every model at the stand-in: bootstrap's own
        // `default`, made after it, and those added later.
        await drover('bootstrap', 'local', '--data-dir', dataDir, '--model-default', `charmhub-url=${hub.url}`);
        expect((await drover('model-config', '-m', 'default', 'charmhub-url')).stdout).toBe(`${hub.url}\n`);
        await drover('add-model', 'hub');
        const deployed = await drover('deploy', 'resourceful', '--channel', 'stable');
        expect(deployed.stderr).toContain('Located charm "resourceful" in charm-hub, revision 1\n');
        const installed = await waitFor(
          'install to record the resource and the storage',
          () => resourceLog(dataDir, 'resourceful/0'),
          (l) => l.some((line) => line.startsWith('hook=install storage=')),
          240_000,
        );
        // The storage first, made ready on the machine and reported attached, then install.
        expect(installed[0]).toMatch(/^hook=data-storage-attached id=data\/0 list=\["data\/0"\] storage=\{.*"kind":"filesystem".*\}$/);
        const location = JSON.parse(installed[0]!.slice(installed[0]!.indexOf('storage=') + 'storage='.length)).location as string;
        expect(location).toMatch(/\/storage\/data\/0$/);
        expect(existsSync(location)).toBe(true);
        expect(installed[1]).toMatch(/^hook=install payload-rc=0 path=\S+\/resources\/payload\/payload\.txt content=store revision 1$/);
        expect(installed).toContain('hook=install storage=["data/0"]');
        const storage = JSON.parse((await drover('storage', '--format', 'json')).stdout);
        expect(storage.storage['data/0']).toMatchObject({ kind: 'filesystem', attachments: { units: { 'resourceful/0': { location } } } });
        expect((await drover('resources', 'resourceful')).stdout).toBe(
          'Resource  Supplied by  Revision\nmissing   upload       -\npayload   store        1\n',
        );

        const refreshed = await drover('refresh', 'resourceful', '--channel', 'edge');
        expect(refreshed.stderr).toBe('Added charm-hub charm "resourceful", revision 2 in channel edge, to the model\n');
        const upgraded = await waitFor(
          'upgrade-charm to record the new resource revision',
          () => resourceLog(dataDir, 'resourceful/0'),
          (lines) => lines.some((l) => l.startsWith('hook=upgrade-charm payload-rc=0')),
          120_000,
        );
        expect(upgraded.find((l) => l.startsWith('hook=upgrade-charm payload-rc'))).toMatch(/content=store revision 2$/);
        const status = JSON.parse((await drover('status', '--format', 'json')).stdout);
        expect(status.applications.resourceful).toMatchObject({
          'charm-origin': 'charmhub',
          'charm-rev': 2,
          'charm-channel': 'latest/edge',
        });
      } finally {
        await cli('kill-controller', 'local', '-y');
        await hub.close();
        await rm(home, { recursive: true, force: true });
      }
    },
  );
});
