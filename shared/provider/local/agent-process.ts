// Starting and stopping a machine agent process on this host.
//
// The agent is detached (its own process group, not killed with the controller) because an agent
// outlives the controller process that started it, as an EC2 instance outlives the provisioner:
// a restarted controller adopts it again from its machine directory.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../provider.js';
import { FILES } from './machine-dir.js';
import { isProcessAlive, processStartTime, type ProcessIdentity } from './process-identity.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SpawnAgentOptions {
  command: string[];
  dir: string;
  env: Record<string, string>;
  /** Written to the agent's standard input, which is then closed: its credential. */
  stdin: string;
  /**
   * Called synchronously with the new process's identity, before spawnAgent returns to the event
   * loop: whatever it writes is on disk before anything else can run, so a controller that dies
   * right after a start never leaves an agent it cannot find again.
   */
  adopt: (identity: ProcessIdentity) => void;
}

export async function spawnAgent(options: SpawnAgentOptions): Promise<ProcessIdentity> {
  const [command, ...args] = options.command;
  if (!command) throw new ProviderError('cannot start machine agent: no agent command configured', false);
  // Appended, not truncated: the log of an earlier attempt says why it was replaced.
  const log = openSync(join(options.dir, FILES.log), 'a', 0o600);
  let child;
  try {
    child = spawn(command, args, { cwd: options.dir, env: options.env, detached: true, stdio: ['pipe', log, log] });
  } finally {
    closeSync(log); // the child has its own copy
  }
  const pid = child.pid;
  if (pid === undefined) {
    // The exec failed (no such command, not executable): Node reports it on the next tick.
    const error = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new ProviderError(`cannot start machine agent "${command}": ${error.message}`, false);
  }
  child.on('error', () => undefined); // a later error (signal delivery) must not crash the controller
  // Far below a pipe's buffer, so it is all there at once, even if this controller dies next; an
  // agent that died first makes it EPIPE, which is nothing to report: the agent is dead anyway.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(options.stdin);
  child.unref();
  const startTime = processStartTime(pid);
  const identity: ProcessIdentity = { pid, ...(startTime ? { startTime } : {}) };
  options.adopt(identity);
  return identity;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    // The whole group: the agent's own children (unit agents, hooks) go with it.
    process.kill(-pid, name);
  } catch {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  }
}

async function waitForExit(identity: ProcessIdentity, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(identity)) {
    if (Date.now() >= deadline) return false;
    await pause(25);
  }
  return true;
}

/**
 * SIGKILLs what is left of a dead agent's process group (a child it had not reaped, a unit
 * agent's helper): it must not run on beside the agent started in its place. A group outlives its
 * leader while any member runs, and Linux never gives a new process a pid still in use as a group
 * id; so the group is the dead agent's unless a process with its pid now runs under another start
 * time (the pid was reused once the group was empty), and then it is left alone.
 */
export function killLeftoverGroup(identity: ProcessIdentity): void {
  if (isProcessAlive(identity)) return; // not dead: terminateAgent is for that
  if (processStartTime(identity.pid) !== undefined) return; // another process has the pid now
  try {
    process.kill(-identity.pid, 'SIGKILL');
  } catch {
    // no group left
  }
}

/** SIGTERM, then SIGKILL after the grace period. A process that is not ours (any more) is left alone. */
export async function terminateAgent(identity: ProcessIdentity, graceMs: number): Promise<void> {
  if (!isProcessAlive(identity)) return;
  signal(identity.pid, 'SIGTERM');
  if (await waitForExit(identity, graceMs)) return;
  if (isProcessAlive(identity)) signal(identity.pid, 'SIGKILL');
  if (!(await waitForExit(identity, 5_000))) {
    throw new ProviderError(`cannot stop machine agent process ${identity.pid}: it survived SIGKILL`, true);
  }
}
