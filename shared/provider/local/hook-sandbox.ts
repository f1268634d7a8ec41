// The local provider's hooks run in a bubblewrap sandbox (https://github.com/containers/bubblewrap),
// so that a charm's hook cannot read the controller beside it (docs/agents.md, "What a hook can
// reach"). Inside:
// - the host's files read-only, a private /tmp, /dev and /proc;
// - the controller's data directory and the user's home hidden under empty tmpfs mounts, with only
//   the hook's machine directory bound back, writable (its charm, state and tools are there);
// - its own PID namespace, so /proc shows the hook's processes and no other (not the agent's, not
//   the controller's, not another unit's hook with its secret in /proc/<pid>/environ);
// - no capability at all, even for root: with CAP_SYS_ADMIN in its mount namespace a hook could
//   `umount -l` the tmpfs and see the data directory again (tried);
// - the host's network, so the unit's tool server and the charm's workloads on 127.0.0.1 are
//   reached as before.
// The controller decides once, at start, whether bwrap works here (`probeHookSandbox`), and tells
// each agent in its environment; an agent told to sandbox runs every hook, action and juju-exec
// command through bwrap, and a hook bwrap cannot start fails rather than running unconfined.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorMessage } from '../../domain/errors.js';

export const HOOK_SANDBOX_ENV = 'DROVER_HOOK_SANDBOX';
const BWRAP = 'bwrap';

export interface HookSandbox {
  kind: 'bwrap';
  /** Directories hidden from hooks (the controller's data directory, the user's home). */
  hidden: string[];
}

/** The agent's environment variable that asks it to sandbox its hooks. */
export function hookSandboxEnv(sandbox: HookSandbox): Record<string, string> {
  return { [HOOK_SANDBOX_ENV]: JSON.stringify(sandbox) };
}

/** The sandbox the agent's provider asked for, or undefined (EC2: an instance is its own sandbox). */
export function hookSandboxFromEnv(env: NodeJS.ProcessEnv): HookSandbox | undefined {
  const value = env[HOOK_SANDBOX_ENV];
  if (!value) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  const sandbox = parsed as Partial<HookSandbox> | undefined;
  if (
    sandbox?.kind !== 'bwrap' ||
    !Array.isArray(sandbox.hidden) ||
    !sandbox.hidden.every((d) => typeof d === 'string' && d.startsWith('/'))
  )
    throw new Error(`${HOOK_SANDBOX_ENV} is not a sandbox: ${value}`);
  return { kind: 'bwrap', hidden: sandbox.hidden };
}

/** bwrap's arguments before `--`: the mounts are applied in order, so a later one is seen over an earlier one. */
function bwrapOptions(sandbox: HookSandbox, machineDir: string, cwd: string): string[] {
  return [
    ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'],
    ...sandbox.hidden.flatMap((dir) => ['--tmpfs', dir]),
    ...['--bind', machineDir, machineDir, '--chdir', cwd],
    // Kept in the caller's process group (no --new-session): the agent signals a hook's group.
    ...['--unshare-pid', '--die-with-parent', '--cap-drop', 'ALL'],
  ];
}

/** The command that runs `command args` in `cwd` inside the sandbox. */
export function sandboxed(
  sandbox: HookSandbox,
  machineDir: string,
  cwd: string,
  command: string,
  args: string[],
): { command: string; args: string[] } {
  return { command: BWRAP, args: [...bwrapOptions(sandbox, machineDir, cwd), '--', command, ...args] };
}

export type HookSandboxProbe = { available: true } | { available: false; why: string };

/**
 * Whether bwrap runs a command here with the sandbox's mounts and namespaces: it may be missing,
 * or the host may deny an ordinary user the user namespace it needs (Ubuntu 24.04's AppArmor
 * default does). A few milliseconds, once per controller start.
 */
export function probeHookSandbox(dataDir: string, bwrap = BWRAP): HookSandboxProbe {
  const machines = join(dataDir, 'machines');
  mkdirSync(machines, { recursive: true, mode: 0o700 });
  const probe = spawnSync(bwrap, [...bwrapOptions({ kind: 'bwrap', hidden: [dataDir] }, machines, machines), '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 10_000,
  });
  if ((probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
    return { available: false, why: 'bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)' };
  if (probe.error || probe.status !== 0)
    return {
      available: false,
      why: `bwrap cannot make a sandbox here: ${(probe.stderr || (probe.error ? errorMessage(probe.error) : `exit ${probe.status}`)).trim()}`,
    };
  return { available: true };
}

/**
 * What the local controller gives its agents for their hooks: the sandbox's variable hiding its
 * data directory and the user's home (the CLI's credentials), where bwrap works; where it does
 * not, nothing, and the warning the operator must read.
 */
export function localHookSandbox(
  dataDir: string,
  home: string | undefined,
  probe: HookSandboxProbe = probeHookSandbox(dataDir),
): { env: Record<string, string>; warning?: string } {
  if (!probe.available)
    return {
      env: {},
      warning: `hooks are not sandboxed: ${probe.why}; a charm's hook can read this controller's secrets in ${dataDir} and act as its admin: deploy only charms you trust`,
    };
  // bwrap mounts over a directory that exists: one that does not has nothing to hide.
  const hidden = [dataDir, ...(home && resolve(home) !== '/' ? [resolve(home)] : [])].filter((dir) => existsSync(dir));
  return { env: hookSandboxEnv({ kind: 'bwrap', hidden }) };
}
