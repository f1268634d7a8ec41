// The local controller as processes: `bootstrap local` starts its supervisor (embedded/supervisor-main.ts)
// detached, which runs embedded/main.ts and restarts it after a crash; both write to
// <data-dir>/controller.log. It waits for the controller to write <data-dir>/controller.json
// (`{controllerId, apiUrl, token, pid, warnings}`, removed on clean exit; bootstrap prints the warnings) and answer `GET /v1/models`.
// The supervisor names itself in <data-dir>/supervisor.json (`{pid}`). `kill-controller` stops
// the controller through its supervisor, or directly when it has none (`npm start`), with SIGTERM
// (SIGKILL after a grace period). These two files are the contract: the CLI imports nothing of the controller.
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod';
import { ApiClient } from './client.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { sleep } from './output.js';

const controllerFileSchema = z.object({
  controllerId: z.string().min(1),
  apiUrl: z.url(),
  token: z.string().min(1),
  pid: z.number().int(),
  /** What the operator must know (embedded/controller.ts: hooks not sandboxed); bootstrap prints them. */
  warnings: z.array(z.string()).optional(),
});
export type ControllerFile = z.infer<typeof controllerFileSchema>;
const supervisorFileSchema = z.object({ pid: z.number().int() });

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const POLL_MS = 200;

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

const supervisorMain = join(repoRoot, 'embedded', 'supervisor-main.ts');

/** The controller's entry point; DROVER_CONTROLLER_MAIN replaces it (tests, development builds). */
function controllerMain(env: CliIo['env']): string {
  const main = env.DROVER_CONTROLLER_MAIN || join(repoRoot, 'embedded', 'main.ts');
  for (const file of [main, supervisorMain])
    if (!existsSync(file)) throw new CliError(`the local controller (${file}) is missing from this installation of drover`);
  return main;
}

export const controllerFilePath = (dataDir: string) => join(dataDir, 'controller.json');
export const controllerLogPath = (dataDir: string) => join(dataDir, 'controller.log');
const supervisorFilePath = (dataDir: string) => join(dataDir, 'supervisor.json');
/** Made by a controller's first start (embedded/secrets.ts): its identity and keys, kept across restarts. */
const hasControllerData = (dataDir: string) => existsSync(join(dataDir, 'secrets.json'));

async function readJsonFile<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Half-written: its writer (the controller or its supervisor) is still starting.
    return undefined;
  }
}

export const readControllerFile = (dataDir: string) => readJsonFile(controllerFilePath(dataDir), controllerFileSchema);

/**
 * Whether `pid` is a live process of the controller serving `dataDir` (the controller or its
 * supervisor). On Linux the command line is checked too, so a pid reused by another process after
 * a crash is never signalled.
 */
async function runsFrom(pid: number, dataDir: string): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return true; // not Linux: trust the pid
  if (/^\d+ \(.*\) Z/.test(stat)) return false; // exited, not yet reaped
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').includes(dataDir);
}

interface ControllerProcesses {
  supervisor?: number;
  controller?: number;
}

/** The live processes of the controller serving `dataDir`; `knownPid` is a controller pid recorded earlier. */
async function processesOf(dataDir: string, knownPid?: number): Promise<ControllerProcesses> {
  const found: ControllerProcesses = {};
  const supervisor = (await readJsonFile(supervisorFilePath(dataDir), supervisorFileSchema))?.pid;
  if (supervisor !== undefined && (await runsFrom(supervisor, dataDir))) found.supervisor = supervisor;
  for (const pid of [(await readControllerFile(dataDir))?.pid, knownPid]) {
    if (pid !== undefined && found.controller === undefined && (await runsFrom(pid, dataDir))) found.controller = pid;
  }
  return found;
}

/**
 * What `dataDir` holds: a controller that runs (`pid`: the controller's, or its supervisor's while
 * it waits to restart it), the data of a stopped one, or nothing yet.
 */
export async function localControllerState(dataDir: string): Promise<{ kind: 'running'; pid: number } | { kind: 'stopped' | 'none' }> {
  const { supervisor, controller } = await processesOf(dataDir);
  const pid = controller ?? supervisor;
  if (pid !== undefined) return { kind: 'running', pid };
  return { kind: hasControllerData(dataDir) ? 'stopped' : 'none' };
}

async function logTail(dataDir: string): Promise<string> {
  const log = await readFile(controllerLogPath(dataDir), 'utf8').catch(() => '');
  const lines = log.trimEnd().split('\n').slice(-10);
  return lines.length && lines[0] ? `\n${lines.map((l) => `  ${l}`).join('\n')}` : '';
}

async function answersModels(file: ControllerFile): Promise<boolean> {
  const client = new ApiClient(
    { name: 'local', controller: { type: 'local', apiUrl: file.apiUrl, token: file.token } },
    { timeoutMs: 5000 },
  );
  try {
    await client.get('models');
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the controller of `dataDir` under its supervisor: a new one, or a stopped one again on its data.
 * `modelDefaults`: bootstrap's `--model-default key=value`, already checked, for the controller to keep before it makes `default`. */
export async function startLocalController(
  io: CliIo,
  dataDir: string,
  modelDefaults: Record<string, string> = {},
): Promise<ControllerFile> {
  const main = controllerMain(io.env);
  const state = await localControllerState(dataDir);
  if (state.kind === 'running') {
    throw new CliError(
      `a controller is already running from ${dataDir} (pid ${state.pid}); add it with "drover register-local ${dataDir}", or bootstrap with another --data-dir`,
    );
  }
  // Left by a controller that crashed: it would be mistaken for the new one's.
  await unlink(controllerFilePath(dataDir)).catch(() => undefined);

  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const log = openSync(controllerLogPath(dataDir), 'a', 0o600);
  const defaultArgs = Object.entries(modelDefaults).flatMap(([key, value]) => ['--model-default', `${key}=${value}`]);
  const child = spawn(
    process.execPath,
    ['--import', tsx, supervisorMain, '--data-dir', dataDir, '--controller-main', main, ...defaultArgs],
    {
      detached: true,
      stdio: ['ignore', log, log],
      cwd: dataDir,
      env: io.env as NodeJS.ProcessEnv,
    },
  );
  closeSync(log);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = signal ? `signal ${signal}` : `exit code ${code}`));
  child.once('error', (e) => (exited = e.message));

  const progress = io.stderrIsTTY;
  if (progress) io.stderr(`Starting the local controller in ${dataDir}`);
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastDot = Date.now();
  try {
    while (Date.now() < deadline) {
      if (exited)
        throw new CliError(
          `the local controller stopped during startup (${exited}); its log is ${controllerLogPath(dataDir)}${await logTail(dataDir)}`,
        );
      const file = await readControllerFile(dataDir);
      if (file && (await answersModels(file))) return file;
      if (progress && Date.now() - lastDot > 1000) {
        io.stderr('.');
        lastDot = Date.now();
      }
      if (await sleep(POLL_MS, io.signal)) throw new CliError('interrupted');
    }
    throw new CliError(
      `the local controller did not start within ${START_TIMEOUT_MS / 1000}s; its log is ${controllerLogPath(dataDir)}${await logTail(dataDir)}`,
    );
  } catch (e) {
    if (!exited && child.pid) process.kill(child.pid, 'SIGTERM');
    throw e;
  } finally {
    if (progress) io.stderr('\n');
    // The supervisor and its controller outlive this command.
    child.unref();
  }
}

/**
 * Stops the controller serving `dataDir`, through its supervisor when it has one (so nothing
 * restarts it; the supervisor exits once the controller has stopped cleanly); false when nothing ran.
 */
export async function stopLocalController(dataDir: string, knownPid: number | undefined, signal: AbortSignal): Promise<boolean> {
  const running = await processesOf(dataDir, knownPid);
  const first = running.supervisor ?? running.controller;
  if (first === undefined) return false;
  const pids = [running.supervisor, running.controller].filter((p) => p !== undefined);
  const anyAlive = async () => (await Promise.all(pids.map((p) => runsFrom(p, dataDir)))).some(Boolean);
  process.kill(first, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!(await anyAlive())) return true;
    await sleep(POLL_MS, signal);
  }
  for (const pid of pids) if (await runsFrom(pid, dataDir)) process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 25 && (await anyAlive()); i++) await sleep(POLL_MS, signal);
  return true;
}
