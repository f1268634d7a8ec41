// destroy-model through the CLI on the local controller (npm start's: DynamoDB Local, the stream
// functions, agents as processes): a model holding related applications, a subordinate and a unit
// in hook error goes Dying and stays, held by that unit, until `--force`, as in Juju; then
// everything in it goes, and the model with it, while `default` beside it is untouched.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startController } from '../../embedded/controller.js';
import type { StatusDoc } from '#shared/domain/status-document.js';
import { waitFor } from '../support/wait-for.js';
import { charmDir, runCli } from '../support/cli.js';
import { silentLogger } from '../support/silent-logger.js';

describe('destroy-model on the local controller', () => {
  it(
    'a unit in hook error holds the model until --force; then the model and everything in it go, and default stays',
    { timeout: 300_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-destroy-model-'));
      const home = mkdtempSync(join(tmpdir(), 'drover-e2e-destroy-model-home-'));
      const env = { DROVER_HOME: home };
      const controller = await startController({ dataDir, logger: silentLogger, timers: { reconcileMs: 2_000 } });
      const run = (...args: string[]) => runCli(args, env);
      const ok = async (...args: string[]) => {
        const res = await run(...args);
        expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
        return res;
      };
      const status = async (model: string) => JSON.parse((await ok('-m', model, 'status', '--format', 'json')).stdout) as StatusDoc;
      try {
        await ok('register-local', dataDir);
        await ok('deploy', charmDir('database'));
        await ok('add-model', 'staging');
        for (const charm of ['database', 'client', 'sidecar', 'flaky']) await ok('deploy', charmDir(charm));
        await ok('relate', 'client', 'database');
        await ok('relate', 'sidecar', 'client');
        await waitFor(
          'flaky/0 in error and the sidecar on client/0',
          () => status('staging'),
          (doc) =>
            doc.applications.flaky?.units?.['flaky/0']?.['workload-status'].current === 'error' &&
            doc.applications.client?.units?.['client/0']?.subordinates?.['sidecar/0'] !== undefined,
          120_000,
        );

        // Without --force the model goes Dying, and the command says what holds it and what to run.
        const held = await run('destroy-model', 'staging', '-y');
        expect(held.code).toBe(1);
        expect(held.stderr).toContain('Destroying model\n');
        expect(held.stderr).toContain(
          'ERROR model "staging" is being destroyed, but units in error hold it: flaky/0; run "drover resolved <unit>" for each, or "drover destroy-model staging --force"',
        );
        const dying = await status('staging');
        expect(dying.model['model-status']).toMatchObject({ current: 'destroying' });
        expect(dying.model['blocked-by']?.join('\n')).toContain('unit flaky/0');
        // Nothing new in a Dying model, in Juju's words.
        expect((await run('-m', 'staging', 'add-machine')).stderr).toBe('ERROR cannot add a new machine: model "staging" is dying\n');
        expect((await run('-m', 'staging', 'deploy', charmDir('cli-mysql'))).stderr).toContain('model "staging" is dying');
        expect((await ok('models')).stdout).toMatch(/staging\* +iaas +destroying/);

        // --force takes the unit in error too; the command waits until the model is gone.
        const forced = await run('destroy-model', 'staging', '-y', '--force');
        expect(forced.code, forced.stderr).toBe(0);
        expect(forced.stderr).toMatch(/Waiting for model to be removed, \d+ machine\(s\), \d+ application\(s\)\.\.\.\n/);
        expect(forced.stderr.endsWith('Model destroyed.\n')).toBe(true);
        expect((await ok('models')).stdout).toBe('Controller: local\n\nModel     Type  Status\ndefault*  iaas  available\n');
        expect((await ok('switch')).stdout).toBe('local:default\n');
        expect((await run('-m', 'staging', 'status')).stderr).toBe('ERROR model "staging" not found; see "drover models"\n');

        // default was never touched, and the name is free again: a new, empty model.
        expect(Object.keys((await status('default')).applications)).toEqual(['database']);
        await ok('add-model', 'staging');
        const fresh = await status('staging');
        expect(fresh.applications).toEqual({});
        expect(fresh.machines).toEqual({});
      } finally {
        await controller.stop();
        rmSync(dataDir, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
});
