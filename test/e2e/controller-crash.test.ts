// A local controller that crashes (SIGKILL, as `npm start` dies to an OOM kill or a bug) leaves
// its machine agents running. Started again on the same data directory (docs/reliability.md, defect #4, #1, #9):
// - its DynamoDB Local did not outlive it, so only one ever runs on the database;
// - the SQS server listens on the same port again and the agents' queues are re-created, so the
//   agents that kept running hear of the next change within seconds, not at their 10-minute
//   resync (they retry a failed receive within 4 s and resync once it works again);
// - as under `drover bootstrap local`, what `npm start` writes is the user's alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DYNAMODB_PID_FILE } from '../../embedded/dynamodb-pid-file.js';
import { STREAM_CONSUMERS } from '../../functions/stream-consumers.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { listMachineDirs, readRecord } from '#shared/provider/local/machine-dir.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { CHARMS } from '../support/agents.js';
import { waitFor } from '../support/wait-for.js';
import { liveAgentPids } from '../support/local-agents.js';

const MAIN = fileURLToPath(new URL('../../embedded/main.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

interface ControllerFile {
  apiUrl: string;
  token: string;
  pid: number;
}

/** `npm start` on dataDir, as its own process. */
function npmStart(dataDir: string): ChildProcess {
  return spawn(process.execPath, ['--import', TSX, MAIN, '--data-dir', dataDir], { stdio: 'ignore' });
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

const controllerFile = (dataDir: string, pid: number) =>
  waitFor(
    `controller ${pid} to serve`,
    () => readJson<ControllerFile>(join(dataDir, 'controller.json')),
    (f) => f?.pid === pid,
    90_000,
  ) as Promise<ControllerFile>;

async function call(controller: ControllerFile, op: string, body: unknown): Promise<void> {
  const res = await fetch(`${controller.apiUrl}/v1/${op}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${controller.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBe(200);
}

async function unitStatus(controller: ControllerFile, unit: string): Promise<{ agent?: string; workload?: string }> {
  const res = await fetch(`${controller.apiUrl}/v1/status`, { headers: { authorization: `Bearer ${controller.token}` } });
  const doc = (await res.json()) as { applications?: Record<string, { units?: Record<string, Record<string, { current: string }>> }> };
  const status = doc.applications?.[unit.split('/')[0]!]?.units?.[unit];
  return { agent: status?.['juju-status']?.current, workload: status?.['workload-status']?.current };
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('a local controller that crashed', () => {
  it(
    'started again, reaches the agents that kept running within seconds; its DynamoDB Local died with it',
    { timeout: 300_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-crash-'));
      const hookLog = () => {
        try {
          return readFileSync(join(dataDir, 'machines', '0', 'units', 'database-0', 'hook-log'), 'utf8');
        } catch {
          return '';
        }
      };
      let running: ChildProcess | undefined;
      try {
        running = npmStart(dataDir);
        let controller = await controllerFile(dataDir, running.pid!);
        const dir = join(CHARMS, 'database');
        await call(controller, 'deploy', {
          charm: {
            metadata: readFileSync(join(dir, 'metadata.yaml'), 'utf8'),
            config: readFileSync(join(dir, 'config.yaml'), 'utf8'),
            archive: (await packCharmDir(dir)).toString('base64'),
          },
        });
        await waitFor('database/0 to start', hookLog, (log) => log.includes('hook=start'), 120_000);
        // ...and the agent to have told the controller: killed before, the start hook counts as
        // interrupted, and the unit waits in error for `resolved`, as in Juju.
        await waitFor(
          'database/0 idle and active',
          () => unitStatus(controller, 'database/0'),
          (s) => s.agent === 'idle' && s.workload === 'active',
          60_000,
        );
        const agent = readRecord(listMachineDirs(dataDir)[0]!)!;
        const database = readJson<{ pid: number; startTime?: string }>(join(dataDir, DYNAMODB_PID_FILE))!;
        const { sqsPort } = readJson<{ sqsPort: number }>(join(dataDir, 'secrets.json'))!;

        // The crash: no clean stop, so nothing stops the agents.
        running.kill('SIGKILL');
        await waitFor(
          'DynamoDB Local to follow its controller',
          () => isProcessAlive(database),
          (alive) => !alive,
          30_000,
        );
        expect(isProcessAlive(agent)).toBe(true);

        running = npmStart(dataDir);
        controller = await controllerFile(dataDir, running.pid!);
        expect(readJson<{ sqsPort: number }>(join(dataDir, 'secrets.json'))!.sqsPort).toBe(sqsPort);
        // The very agent that kept running, not a new one.
        expect(liveAgentPids(dataDir)).toEqual([agent.pid]);

        const changedAt = Date.now();
        await call(controller, 'config', { application: 'database', set: { 'db-name': 'after-crash' } });
        // Without a hint the agent would see this only at its resync, ten minutes away.
        await waitFor('config-changed after the crash', hookLog, (log) => log.includes('db-name=after-crash'), 30_000);
        console.log(
          `controller restarted after a crash -> agent ran config-changed ${((Date.now() - changedAt) / 1000).toFixed(1)} s after the change`,
        );

        // A second npm start on the directory in use stops at once and names the running one.
        const second = spawn(process.execPath, ['--import', TSX, MAIN, '--data-dir', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        second.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const code = await new Promise((r) => second.once('exit', r));
        expect(code).toBe(1);
        expect(stderr).toContain(`another controller (pid ${running.pid}) is running from ${dataDir}`);
        expect(liveAgentPids(dataDir)).toEqual([agent.pid]);

        // What npm start wrote is the user's alone (docs/reliability.md, defect #9).
        expect(modeOf(dataDir)).toBe(0o700);
        const written = [
          ...filesUnder(join(dataDir, 'dynamodb')),
          ...filesUnder(join(dataDir, 'charms')),
          ...readdirSync(dataDir)
            // The checkpoints themselves, not a `.tmp` one being written (or left by the kill).
            .filter((f) => f.startsWith('checkpoints-') && f.endsWith('.json'))
            .map((f) => join(dataDir, f)),
          join(dataDir, 'logs', 'debug-log.jsonl'),
        ];
        expect(written.some((f) => f.endsWith('.db'))).toBe(true);
        // One checkpoint file per stream consumer, each of which has had records by now.
        expect(
          written
            .filter((f) => f.includes('checkpoints-'))
            .map((f) => basename(f))
            .sort(),
        ).toEqual(STREAM_CONSUMERS.map((c) => `checkpoints-${c.name}.json`).sort());
        expect(written.filter((f) => modeOf(f) !== 0o600).map((f) => `${f} ${modeOf(f).toString(8)}`)).toEqual([]);
      } finally {
        if (running && running.exitCode === null) {
          const exited = new Promise((r) => running!.once('exit', r));
          running.kill('SIGTERM');
          await exited;
        }
        console.log(dataDir, readFileSync(join(dataDir, 'machines', '0', 'agent.log'), 'utf8').slice(-6000));
        for (const pid of liveAgentPids(dataDir)) process.kill(pid, 'SIGKILL');
        if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
