// `npm start`: the local controller in the foreground. Ctrl-C stops it cleanly (agents included);
// state stays in the data directory and the next start resumes it. `drover bootstrap local` runs
// the same under a supervisor (embedded/supervisor-main.ts), which this process tells when it
// serves, and whose death stops it cleanly too (embedded/supervision-channel.ts).
import { parseArgs } from 'node:util';
import { startController, type RunningController } from './controller.js';
import { DataDirLockedError } from './data-dir-lock.js';
import { onSupervisorGone, tellSupervisorReady } from './supervision-channel.js';

// Everything this controller and its children write (the database, checkpoints, charm archives,
// debug-log.jsonl, the agents' machine directories) is the user's alone, as under `drover
// bootstrap local`: the database holds relation data, passwords included.
process.umask(0o077);

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: process.env.DROVER_DATA_DIR ?? '.drover/controller' },
    port: { type: 'string' },
    // `drover bootstrap local --model-default key=value` (checked by the CLI, and again when set).
    'model-default': { type: 'string', multiple: true },
  },
});

const modelDefaults = Object.fromEntries(
  (values['model-default'] ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

let controller: RunningController | undefined;
let stopping = false;
/** Why a stop was asked for during startup: it is done once started, as for a started controller. */
let stopAsked: string | undefined;
async function stop(reason: string): Promise<void> {
  stopAsked ??= reason;
  if (stopping || !controller) return;
  stopping = true;
  console.log(`\n${reason}: stopping the controller...`);
  await controller.stop();
  console.log('stopped.');
  process.exit(0);
}
onSupervisorGone(() => void stop('its supervisor is gone'));
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

controller = await startController({
  dataDir: values['data-dir']!,
  ...(values.port ? { port: Number(values.port) } : {}),
  ...(Object.keys(modelDefaults).length ? { modelDefaults } : {}),
}).catch((e: unknown) => {
  // Said plainly: another controller on this data directory is not a crash of this one.
  if (!(e instanceof DataDirLockedError)) throw e;
  console.error(`ERROR ${e.message}`);
  process.exit(1);
});

console.log(`drover controller ${controller.controllerId} is running.
  API:        ${controller.apiUrl} (127.0.0.1 only)
  data:       ${controller.dataDir}
  connection: ${controller.dataDir}/controller.json (API URL and token; keep it private)

Drive it with the drover CLI from this directory, for example:
  npx drover register-local ${controller.dataDir}
  npx drover deploy test/charms/database
  npx drover status

Ctrl-C stops the controller and its machine agents; the next start resumes them.`);
tellSupervisorReady();

if (stopAsked) await stop(stopAsked);
