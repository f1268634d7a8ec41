// A machine of the local controller, as `drover ssh` and `scp` reach it: the directory its agent
// runs in (shared/provider/local/machine-dir.ts), found by the instance status names, which
// stands for the machine's disk. Its home, where relative scp paths resolve and a shell starts,
// is that directory itself, as Juju's are the `ubuntu` user's home; so the model's keys the agent
// installs are in `<machine dir>/.ssh/authorized_keys`, where they would be in ~ubuntu on EC2.
import { listMachineDirs, readRecord } from '#shared/provider/local/machine-dir.js';
import { JUJU_VERSION } from '#shared/domain/juju-version.js';
import { CliError } from '../errors.js';
import type { ResolvedTarget } from './resolve-target.js';

/** The machine's directory, or a clear error when this host runs no such instance. */
export function localMachineDir(dataDir: string, target: ResolvedTarget): string {
  const dir = listMachineDirs(dataDir).find((d) => readRecord(d)?.instanceId === target.instanceId);
  if (!dir) throw new CliError(`machine ${target.machine} (instance ${target.instanceId}) is not running in ${dataDir}`);
  return dir;
}

export interface MachineShellContext {
  machineDir: string;
  machine: string;
  modelName: string;
  modelUuid: string;
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * What a hook on the machine sees of its environment, without a hook's context (no unit, no hook
 * tools, no context id; agent/uniter/hook-env.ts builds a hook's): the model and machine it is
 * in, Juju's ubuntuEnv, and the machine's home.
 */
export function machineShellEnvironment(base: Record<string, string | undefined>, ctx: MachineShellContext): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['LC_ALL', 'TZ', 'TMPDIR', 'USER', 'LOGNAME']) {
    const value = base[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: ctx.machineDir,
    SHELL: '/bin/bash',
    JUJU_MODEL_NAME: ctx.modelName,
    JUJU_MODEL_UUID: ctx.modelUuid,
    JUJU_MACHINE_ID: ctx.machine,
    JUJU_VERSION,
    APT_LISTCHANGES_FRONTEND: 'none',
    DEBIAN_FRONTEND: 'noninteractive',
    LANG: 'C.UTF-8',
    PATH: base.PATH ?? DEFAULT_PATH,
    TERM: base.TERM ?? 'tmux-256color',
  };
}
