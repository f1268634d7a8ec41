// The README's walkthrough with the real local controller (embedded/main.ts, its own DynamoDB
// Local, agents and all): bootstrap local, deploy two related charms, status, scale, remove,
// a second model made (consuming an offer of the first and relating to it) and destroyed, kill-controller. It takes a while (the controller starts its own DynamoDB Local); the other
// CLI suites cover every verb against the same API in-process.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { charmDir, spawnCli } from '../support/cli.js';

describe('the walkthrough, against the real local controller', () => {
  it('bootstrap, deploy, relate, status, scale, remove, a second model, kill-controller', { timeout: 180_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'drover-walkthrough-'));
    const env = { DROVER_HOME: home };
    const drover = async (...args: string[]) => {
      const res = await spawnCli(args, env);
      expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
      return res;
    };
    try {
      expect((await drover('bootstrap', 'local')).stderr).toContain('Bootstrap complete, controller "local" is now available');
      // The README's "Five minutes with drover", command for command.
      await drover('deploy', charmDir('database'));
      await drover('deploy', charmDir('client'));
      await drover('relate', 'client', 'database');
      const status = await drover('status', '--relations');
      expect(status.stdout).toMatch(/\ndatabase\/0\*? /); // `*`: the leader, once elected
      expect(status.stdout).toMatch(/\ndatabase:db +client:db +dbtest +regular/);
      await drover('add-unit', 'client', '-n', '2');
      expect((await drover('status', 'client', '--format', 'json')).stdout).toContain('"client/2"');
      await drover('debug-log', '--replay', '--no-tail');
      expect((await drover('remove-application', 'client')).stderr).toBe('removing application client\n');
      await drover('stuck');
      // Its models block.
      expect((await drover('add-model', 'staging')).stderr).toBe('Added \'staging\' model on controller "local"\n');
      await drover('deploy', charmDir('database'));
      expect((await drover('models')).stdout).toMatch(/default +iaas +available\nstaging\* +iaas +available\n$/);
      expect((await drover('offer', 'default.database:db')).stderr).toBe(
        'Application "database" endpoints [db] available at "admin/default.database"\n',
      );
      expect((await drover('consume', 'default.database', 'db')).stderr).toBe('Added default.database as db\n');
      await drover('deploy', charmDir('client'));
      await drover('integrate', 'client', 'db');
      expect((await drover('status', '--relations')).stdout).toMatch(/\ndb:db +client:db +dbtest +regular/);
      expect((await drover('destroy-model', 'staging', '-y')).stderr).toMatch(/Destroying model\n[^]*Model destroyed\.\n$/);
    } finally {
      await spawnCli(['kill-controller', 'local', '-y'], env);
    }
  });
});
