// The local controller runs hooks in a bubblewrap sandbox (shared/provider/local/hook-sandbox.ts,
// docs/agents.md "What a hook can reach"): test/charms/snoop's install hook tries to read the
// controller's secrets.json and controller.json, looks for the controller's process and writes
// outside its machine, and records what it managed; python3 and its own directory must still work.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startController } from '../../embedded/controller.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { probeHookSandbox } from '#shared/provider/local/hook-sandbox.js';
import { CHARMS } from '../support/agents.js';
import { silentLogger } from '../support/silent-logger.js';
import { waitFor } from '../support/wait-for.js';

describe('hooks on the local controller', () => {
  it(
    "cannot read the controller's secrets or see its process, and still run python3 and write their own directory",
    { timeout: 120_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-sandbox-'));
      // The sandbox needs bwrap (.ci/run installs the bubblewrap package): without it this says so.
      expect(probeHookSandbox(dataDir)).toEqual({ available: true });
      const controller = await startController({ dataDir, logger: silentLogger });
      try {
        expect(controller.warnings).toEqual([]);
        const secrets = join(dataDir, 'secrets.json');
        const info = join(dataDir, 'controller.json');
        expect([existsSync(secrets), existsSync(info)]).toEqual([true, true]);
        const dir = join(CHARMS, 'snoop');
        const res = await fetch(`${controller.apiUrl}/v1/deploy`, {
          method: 'POST',
          headers: { authorization: `Bearer ${controller.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            charm: {
              metadata: readFileSync(join(dir, 'metadata.yaml'), 'utf8'),
              config: readFileSync(join(dir, 'config.yaml'), 'utf8'),
              archive: (await packCharmDir(dir)).toString('base64'),
            },
            config: { paths: `${secrets} ${info}`, pid: String(process.pid) },
          }),
        });
        expect(res.status, await res.clone().text()).toBe(200);
        const record = join(dataDir, 'machines', '0', 'units', 'snoop-0', 'snoop.txt');
        const seen = await waitFor(
          "snoop's install hook to record what it reached",
          () => (existsSync(record) ? readFileSync(record, 'utf8') : ''),
          Boolean,
          90_000,
        );
        expect(seen.split('\n')).toEqual([
          `cannot read ${secrets}`,
          `cannot read ${info}`,
          `cannot see process ${process.pid}`,
          'cannot write /usr',
          'python3 runs',
          'wrote its charm directory',
          '',
        ]);
      } finally {
        await controller.stop();
        rmSync(dataDir, { recursive: true, force: true });
        rmSync('/usr/snooped', { force: true });
      }
    },
  );
});
