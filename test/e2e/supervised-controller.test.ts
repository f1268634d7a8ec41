// The local controller `drover bootstrap local` starts runs under a supervisor
// (embedded/supervisor-main.ts; docs/reliability.md, "The local controller's supervisor"), with
// the real controller, its DynamoDB Local and real machine agents:
// - the controller killed with kill -9 is back within seconds on the same data, and the agent that
//   kept running hears of the next change;
// - the supervisor killed with kill -9 takes the controller with it, cleanly: nothing of the data
//   directory is left running, and `bootstrap local --data-dir` starts it again on its data, where
//   the agents resume;
// - `kill-controller` leaves no process of the data directory behind.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listMachineDirs } from '#shared/provider/local/machine-dir.js';
import { charmDir, runCli } from '../support/cli.js';
import { processesOfDataDir } from '../support/data-dir-processes.js';
import { liveAgentPids } from '../support/local-agents.js';
import { waitFor } from '../support/wait-for.js';

interface ControllerFile {
  controllerId: string;
  apiUrl: string;
  token: string;
  pid: number;
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function unitStatus(controller: ControllerFile, unit: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${controller.apiUrl}/v1/status`, { headers: { authorization: `Bearer ${controller.token}` } });
    const doc = (await res.json()) as { applications?: Record<string, { units?: Record<string, Record<string, { current: string }>> }> };
    const status = doc.applications?.[unit.split('/')[0]!]?.units?.[unit];
    return `${status?.['juju-status']?.current}/${status?.['workload-status']?.current}`;
  } catch {
    return undefined; // not answering (yet)
  }
}

describe('the supervised local controller', () => {
  it(
    'kill -9 of the controller: back within seconds, agents carry on; of the supervisor: all stops, and bootstrap starts it again',
    { timeout: 420_000 },
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'drover-e2e-supervised-'));
      const dataDir = join(home, 'ctl');
      const env = { DROVER_HOME: home };
      const drover = async (...args: string[]) => {
        const res = await runCli(args, env);
        expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
        return res;
      };
      const controllerFile = () => readJson<ControllerFile>(join(dataDir, 'controller.json'));
      const hookLogPath = join(dataDir, 'machines', '0', 'units', 'database-0', 'hook-log');
      const hookLog = () => (existsSync(hookLogPath) ? readFileSync(hookLogPath, 'utf8') : '');
      const agentLog = () => {
        const dir = listMachineDirs(dataDir)[0];
        return dir && existsSync(join(dir, 'agent.log')) ? readFileSync(join(dir, 'agent.log'), 'utf8').split('\n').slice(-30) : [];
      };
      /** How many config-changed hooks the agent has finished (its log says so once each has ended). */
      const configHooksRun = () => {
        const dir = listMachineDirs(dataDir)[0];
        const log = dir && existsSync(join(dir, 'agent.log')) ? readFileSync(join(dir, 'agent.log'), 'utf8') : '';
        return log.split('ran "config-changed" hook').length - 1;
      };
      const configChanged = async (value: string) => {
        const before = configHooksRun();
        await drover('config', 'database', `db-name=${value}`);
        await waitFor(
          `config-changed with db-name=${value}`,
          () => ({ hooks: hookLog(), agent: agentLog() }),
          ({ hooks }) => hooks.includes(`db-name=${value}`),
          60_000,
        );
        // The hook writes its line while it runs: the test goes on once it has ended, since a
        // controller stopped meanwhile stops its agents, and a hook cut off counts as failed.
        await waitFor('config-changed to end', configHooksRun, (n) => n > before, 60_000);
      };
      try {
        await drover('bootstrap', 'local', '--data-dir', dataDir);
        const first = controllerFile()!;
        await drover('deploy', charmDir('database'));
        await waitFor(
          'database/0 idle and active',
          () => unitStatus(first, 'database/0'),
          (s) => s === 'idle/active',
          120_000,
        );
        const [agent] = liveAgentPids(dataDir);
        expect(agent).toBeDefined();

        // kill -9 of the controller, not of its supervisor.
        const killedAt = Date.now();
        process.kill(first.pid, 'SIGKILL');
        const back = await waitFor(
          'the controller to be restarted and answer',
          async () => {
            const file = controllerFile();
            return { file, status: file && file.pid !== first.pid ? await unitStatus(file, 'database/0') : undefined };
          },
          ({ status }) => status === 'idle/active',
          60_000,
        );
        const downFor = (Date.now() - killedAt) / 1000;
        console.log(`controller killed with kill -9 -> answering again after ${downFor.toFixed(1)} s`);
        expect(back.file).toMatchObject({ controllerId: first.controllerId, apiUrl: first.apiUrl });
        // The very agent that kept running carries on.
        expect(liveAgentPids(dataDir)).toEqual([agent]);
        await configChanged('after-crash');
        expect(readFileSync(join(dataDir, 'controller.log'), 'utf8')).toContain(
          `the controller (pid ${first.pid}) stopped unexpectedly (signal SIGKILL); restarting it now on the same data`,
        );

        // kill -9 of the supervisor: the controller stops cleanly, and with it everything else.
        process.kill(readJson<{ pid: number }>(join(dataDir, 'supervisor.json'))!.pid, 'SIGKILL');
        await waitFor(
          'nothing of the data directory to run',
          () => processesOfDataDir(dataDir),
          (p) => p.length === 0,
          60_000,
        );
        expect(readFileSync(join(dataDir, 'controller.log'), 'utf8')).toContain('its supervisor is gone: stopping the controller');

        const again = await drover('bootstrap', 'local', '--data-dir', dataDir);
        expect(again.stderr).toContain(`Controller "local" (${first.controllerId}) started again on its data in ${dataDir}`);
        await waitFor(
          'database/0 idle and active again',
          () => unitStatus(controllerFile()!, 'database/0'),
          (s) => s === 'idle/active',
          60_000,
        );
        // Its agent resumed: a new process for the same machine, which hears of changes.
        await waitFor(
          'the agent to resume',
          () => liveAgentPids(dataDir),
          (pids) => pids.length === 1 && pids[0] !== agent,
          60_000,
        );
        await configChanged('after-restart');

        await drover('kill-controller', 'local', '-y');
        expect(processesOfDataDir(dataDir)).toEqual([]);
      } finally {
        for (const { pid } of processesOfDataDir(dataDir)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
});
