// A fresh local drover controller for one harness run, and a `juju` that is drover: started with
// `drover bootstrap local` into a data directory of the run's own (so on free ports, beside any
// other controller), with a client home of its own (DROVER_HOME), and stopped with
// `drover kill-controller`. Its model defaults are given at bootstrap (the stand-in Charmhub's URL).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DROVER = fileURLToPath(new URL('../../cli/drover.mjs', import.meta.url));
export const CONTROLLER_NAME = 'drover-jubilant';

export interface RunController {
  /** The environment every `juju`/drover call of the run needs: PATH with the `juju` shim, DROVER_HOME. */
  env: NodeJS.ProcessEnv;
  stop(): void;
}

/** `modelDefaults`: bootstrap's `--model-default key=value`s, which every model of the run takes (its charmhub-url). */
export function startController(workDir: string, log: (line: string) => void, modelDefaults: Record<string, string> = {}): RunController {
  const bin = join(workDir, 'bin');
  mkdirSync(bin, { recursive: true });
  // jubilant runs `juju` from PATH (Juju(cli_binary=None)); this one is drover, same arguments.
  writeFileSync(join(bin, 'juju'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(DROVER)} "$@"\n`);
  chmodSync(join(bin, 'juju'), 0o755);
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, DROVER_HOME: join(workDir, 'drover-home') };
  const dataDir = join(workDir, 'controller');
  log(`starting a local controller in ${dataDir}`);
  const defaults = Object.entries(modelDefaults).flatMap(([key, value]) => ['--model-default', `${key}=${value}`]);
  execFileSync(process.execPath, [DROVER, 'bootstrap', 'local', CONTROLLER_NAME, '--data-dir', dataDir, ...defaults], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let stopped = false;
  return {
    env,
    stop() {
      if (stopped) return;
      stopped = true;
      log('stopping the controller and its agents');
      execFileSync(process.execPath, [DROVER, 'kill-controller', CONTROLLER_NAME, '-y'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    },
  };
}
