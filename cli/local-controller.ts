// The local controller as a process: `bootstrap local` starts embedded/main.ts detached, with its
// output in <data-dir>/controller.log, and waits for it to write <data-dir>/controller.json
// (`{apiUrl, token, pid, warnings}`, removed on clean exit; bootstrap prints the warnings) and answer `GET /v1/status`;
// `kill-controller` stops it with SIGTERM (SIGKILL after a grace period).
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
  apiUrl: z.url(),
  token: z.string().min(1),
  pid: z.number().int(),
  /** What the operator must know (embedded/controller.ts: hooks not sandboxed); bootstrap prints them. */
  warnings: z.array(z.string()).optional(),
});
export type ControllerFile = z.infer<typeof controllerFileSchema>;

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const POLL_MS = 200;

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The controller's entry point; DROVER_CONTROLLER_MAIN replaces it (tests, development builds). */
function controllerMain(env: CliIo['env']): string {
  const main = env.DROVER_CONTROLLER_MAIN || join(repoRoot, 'embedded', 'main.ts');
  if (!existsSync(main)) throw new CliError(`the local controller (${main}) is missing from this installation of drover`);
  return main;
}

export const controllerFilePath = (dataDir: string) => join(dataDir, 'controller.json');
export const controllerLogPath = (dataDir: string) => join(dataDir, 'controller.log');

export async function readControllerFile(dataDir: string): Promise<ControllerFile | undefined> {
  const text = await readFile(controllerFilePath(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = controllerFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Half-written: the controller is still starting.
    return undefined;
  }
}

/**
 * Whether `pid` is a live controller serving `dataDir`. On Linux the command line is checked too,
 * so a pid reused by another process after a crash is never signalled.
 */
export async function isControllerProcess(pid: number, dataDir: string): Promise<boolean> {
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

export async function startLocalController(io: CliIo, dataDir: string): Promise<ControllerFile> {
  const main = controllerMain(io.env);
  const existing = await readControllerFile(dataDir);
  if (existing) {
    if (await isControllerProcess(existing.pid, dataDir)) {
      throw new CliError(
        `a controller is already running from ${dataDir} (pid ${existing.pid}); stop it with "drover kill-controller", or bootstrap with another --data-dir`,
      );
    }
    // Left by a controller that crashed: it would be mistaken for the new one's.
    await unlink(controllerFilePath(dataDir)).catch(() => undefined);
  }

  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const log = openSync(controllerLogPath(dataDir), 'a', 0o600);
  const child = spawn(process.execPath, ['--import', tsx, main, '--data-dir', dataDir], {
    detached: true,
    stdio: ['ignore', log, log],
    cwd: dataDir,
    env: io.env as NodeJS.ProcessEnv,
  });
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
    // The controller outlives this command.
    child.unref();
  }
}

/** Stops the controller serving `dataDir`; false when it was not running. */
export async function stopLocalController(dataDir: string, knownPid: number | undefined, signal: AbortSignal): Promise<boolean> {
  const pid = (await readControllerFile(dataDir))?.pid ?? knownPid;
  if (pid === undefined || !(await isControllerProcess(pid, dataDir))) return false;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!(await isControllerProcess(pid, dataDir))) return true;
    await sleep(POLL_MS, signal);
  }
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 25 && (await isControllerProcess(pid, dataDir)); i++) await sleep(POLL_MS, signal);
  return true;
}
