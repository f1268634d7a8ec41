// The README's walkthrough with the real local controller (embedded/main.ts, its own DynamoDB
// Local, agents and all): bootstrap local, deploy two related charms, status, scale, remove,
// kill-controller. It takes a while (the controller starts its own DynamoDB Local); the other
// CLI suites cover every verb against the same API in-process.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { charmDir, spawnCli } from '../support/cli.js';

describe('the walkthrough, against the real local controller', () => {
  it('bootstrap, deploy, relate, status, scale, remove, kill-controller', { timeout: 180_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'drover-walkthrough-'));
    const env = { DROVER_HOME: home };
    const drover = async (...args: string[]) => {
      const res = await spawnCli(args, env);
      expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
      return res;
    };
    try {
      expect((await drover('bootstrap', 'local')).stderr).toContain('Bootstrap complete, controller "local" is now available');
      await drover('deploy', charmDir('cli-mysql'));
      await drover('deploy', charmDir('cli-wordpress'));
      await drover('relate', 'wordpress', 'mysql');
      const status = await drover('status', '--relations');
      expect(status.stdout).toMatch(/\nmysql\/0 /);
      expect(status.stdout).toMatch(/\nmysql:server +wordpress:db +mysql +regular/);
      await drover('add-unit', 'wordpress', '-n', '2');
      expect((await drover('status', 'wordpress', '--format', 'json')).stdout).toContain('"wordpress/2"');
      expect((await drover('remove-application', 'wordpress')).stderr).toBe('removing application wordpress\n');
    } finally {
      await spawnCli(['kill-controller', 'local', '-y'], env);
    }
  });
});
