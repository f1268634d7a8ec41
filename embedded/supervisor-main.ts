// The process `drover bootstrap local` starts: it runs the local controller (embedded/main.ts, or
// --controller-main) as its child and keeps it running (embedded/controller-supervisor.ts says
// when it restarts it). Its own output and the controller's go to the same place, controller.log.
//
// <data-dir>/supervisor.json names it ({pid}) while it runs: `kill-controller` stops the
// controller through it (SIGTERM here: the controller is stopped cleanly, then this process
// exits), so nothing restarts what the user stopped. Killed itself (kill -9), it cannot stop its
// child; the child learns of it from its IPC channel closing and stops cleanly, agents included
// (embedded/supervision-channel.ts), and `bootstrap local --data-dir` starts both again.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { systemClock } from '../agent/clock.js';
import { errorMessage } from '#shared/domain/errors.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { superviseController, type ControllerExit, type ControllerProcess, type SupervisionEnd } from './controller-supervisor.js';
import { partsLog } from './parts-log.js';
import { writePrivateJson } from './secrets.js';
import { READY_MESSAGE } from './supervision-channel.js';

const SUPERVISOR_FILE = 'supervisor.json';

process.umask(0o077);

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'controller-main': { type: 'string' },
    // bootstrap's `--model-default key=value`: for the controller's first start only, so that a
    // restart never undoes a `model-defaults` change made since.
    'model-default': { type: 'string', multiple: true },
  },
});
if (!values['data-dir']) throw new Error('--data-dir is required');
const dataDir = resolve(values['data-dir']);
const main = values['controller-main'] ?? fileURLToPath(new URL('./main.ts', import.meta.url));

let firstStartArgs = (values['model-default'] ?? []).flatMap((pair) => ['--model-default', pair]);

/** The controller, run with this process's own Node options (the TypeScript loader among them). */
function startController(): ControllerProcess {
  const args = [...process.execArgv, main, '--data-dir', dataDir, ...firstStartArgs];
  firstStartArgs = [];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    cwd: dataDir,
  });
  const exitListeners: ((exit: ControllerExit) => void)[] = [];
  let exited = false;
  const exit = (e: ControllerExit) => {
    if (exited) return;
    exited = true;
    for (const listener of exitListeners) listener(e);
  };
  child.once('exit', (code, signal) => exit({ code, signal }));
  child.once('error', (e) => {
    console.error(`cannot start the controller: ${errorMessage(e)}`);
    exit({ code: 127, signal: null });
  });
  return {
    pid: child.pid,
    onReady: (listener) => child.on('message', (m) => m === READY_MESSAGE && listener()),
    onExit: (listener) => void exitListeners.push(listener),
    kill: (signal) => void child.kill(signal),
  };
}

const pidFile = join(dataDir, SUPERVISOR_FILE);
writePrivateJson(pidFile, { pid: process.pid });

const supervisor = superviseController({
  start: startController,
  clock: systemClock,
  log: partsLog(new Logger({ serviceName: 'supervisor' }), fileLogSink(join(dataDir, 'logs'))),
  logPath: join(dataDir, 'controller.log'),
  restartCommand: `drover bootstrap local --data-dir ${dataDir}`,
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void supervisor.stop());

const exitCode = (end: SupervisionEnd): number => {
  if (end.kind === 'stopped') return 0;
  // The controller's own code, so `bootstrap local` reports the startup failure as it was.
  if (end.kind === 'failed-to-start') return end.exit.code || 1;
  return 1;
};
const end = await supervisor.ended;
rmSync(pidFile, { force: true });
process.exit(exitCode(end));
