// Many models on one local controller, with real agents: an application of the same name deployed
// in `default` and in a second model runs on machine 0 of each, and each machine's agent serves
// its own model only (its queue, its directory, its identity on the agent API: the models' keys).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_REGION, startController, TABLE } from '../../embedded/controller.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { machineDirOf } from '#shared/provider/local/machine-dir.js';
import { getApplication, getMachine, getModel, getUnit } from '#shared/state/engine/reads.js';
import { createStore, storeForModel, type Store } from '#shared/state/engine/store.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { addModel } from '#shared/state/operations/model.js';
import { CHARMS } from '../support/agents.js';
import { waitFor } from '../support/wait-for.js';
import { silentLogger } from '../support/silent-logger.js';

async function charm(name: string) {
  const dir = join(CHARMS, name);
  return {
    metadata: readFileSync(join(dir, 'metadata.yaml'), 'utf8'),
    config: readFileSync(join(dir, 'config.yaml'), 'utf8'),
    archive: (await packCharmDir(dir)).toString('base64'),
  };
}

/** The unit's agent and its machine's agent, as status shows them. */
async function agentsOf(store: Store, unit: string) {
  const [u, m] = await Promise.all([getUnit(store, unit), getMachine(store, '0')]);
  return { unit: u?.agentStatus.current, machine: m?.agentStatus.current };
}

/** The JUJU_* environment the unit's start hook ran with (the test charm writes it: test/charms/database/lib/common.sh). */
function startEnv(machineDir: string, unit: string): Record<string, string> {
  const file = join(machineDir, 'units', unit.replace('/', '-'), 'env-start');
  if (!existsSync(file)) return {};
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('agents of two models on one local controller', () => {
  it(
    'the same application in `default` and in a second model: both machine 0s run, each with its own model only',
    { timeout: 180_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-models-'));
      let controller = await startController({ dataDir, logger: silentLogger, timers: { reconcileMs: 2_000 } });
      try {
        // `default` through the user API, as drover deploy does.
        const res = await fetch(`${controller.apiUrl}/v1/deploy`, {
          method: 'POST',
          headers: { authorization: `Bearer ${controller.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ charm: await charm('database') }),
        });
        expect(res.status, await res.clone().text()).toBe(200);
        // The second model through the state operations, on the controller's own table: the same
        // application name, the same charm (its archive is in the controller's charm store already).
        const table = createStore({
          table: TABLE,
          endpoint: controller.databaseEndpoint,
          accessKeyId: controller.databaseAccessKey,
          region: LOCAL_REGION,
          cache: false,
        });
        const inDefault = storeForModel(table, 'default');
        const other = storeForModel(table, (await addModel(table, { name: 'other' })).uuid!);
        const app = (await getApplication(inDefault, 'database'))!;
        await deploy(other, { charm: app.charm, ...(app.charmArchive ? { charmArchive: app.charmArchive } : {}) });

        for (const store of [inDefault, other])
          await waitFor(
            `database/0 of model ${store.model} to be idle on a started machine 0`,
            () => agentsOf(store, 'database/0'),
            (agents) => agents.unit === 'idle' && agents.machine === 'started',
            120_000,
          );

        // Each model's machine 0 is its own agent, in its own directory, and ran its own model's unit.
        const dirs = { default: machineDirOf(dataDir, '0'), other: machineDirOf(dataDir, '0', other.model) };
        expect(dirs.default).not.toBe(dirs.other);
        for (const [name, store] of [
          ['default', inDefault],
          ['other', other],
        ] as const) {
          const uuid = (await getModel(store))!.uuid!;
          expect(readdirSync(join(dirs[name], 'units'))).toEqual(['database-0']);
          expect(startEnv(dirs[name], 'database/0')).toMatchObject({
            JUJU_MODEL_UUID: uuid,
            JUJU_MODEL_NAME: name,
            JUJU_UNIT_NAME: 'database/0',
          });
        }
        expect((await getModel(inDefault))!.uuid).not.toBe((await getModel(other))!.uuid);
        expect((await getMachine(inDefault, '0'))!.instanceId).not.toBe((await getMachine(other, '0'))!.instanceId);

        // A change in the second model reaches its machine's agent (the hint on that model's
        // machine 0 queue), and only that one: `default`'s database/0 keeps its config.
        const hookLog = (dir: string) => readFileSync(join(dir, 'units', 'database-0', 'hook-log'), 'utf8');
        await setApplicationConfig(other, 'database', { set: { 'db-name': 'in-other' } });
        await waitFor(
          'config-changed in the second model',
          () => hookLog(dirs.other),
          (log) => log.includes('db-name=in-other'),
          60_000,
        );
        await setApplicationConfig(inDefault, 'database', { set: { 'db-name': 'in-default' } });
        await waitFor(
          'config-changed in default',
          () => hookLog(dirs.default),
          (log) => log.includes('db-name=in-default'),
          60_000,
        );
        expect(hookLog(dirs.default)).not.toContain('db-name=in-other');
        expect(hookLog(dirs.other)).not.toContain('db-name=in-default');

        // A controller restarted resumes the agents of both models (embedded/resume-agents.ts),
        // and the second model's hears of its next change.
        await controller.stop();
        controller = await startController({ dataDir, logger: silentLogger, timers: { reconcileMs: 2_000 } });
        const restarted = createStore({
          table: TABLE,
          endpoint: controller.databaseEndpoint,
          accessKeyId: controller.databaseAccessKey,
          region: LOCAL_REGION,
          cache: false,
        });
        await setApplicationConfig(storeForModel(restarted, other.model), 'database', { set: { 'db-name': 'after-restart' } });
        await waitFor(
          'config-changed after the restart',
          () => hookLog(dirs.other),
          (log) => log.includes('db-name=after-restart'),
          60_000,
        );
      } finally {
        await controller.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
