// Hooks, actions and juju-exec commands run in process groups of their own, not in the agent's:
// - a hook that signals its own group (`trap 'kill 0' EXIT` is a common shell idiom) must not
//   take the machine agent down with it;
// - whatever a hook started (`cmd &`) is one group, signalled as one.
// Out of the agent's group, they no longer die when the agent's group is killed, so the agent
// keeps track of them: each running group is recorded in `<machine dir>/running-hooks/<pid>`
// (pid and start time, written before the spawn returns to the event loop), the agent forwards
// SIGTERM to them when it is told to stop, SIGKILLs them when it exits, and a restarted agent
// SIGKILLs the groups a killed one left behind (the local provider and systemd restart a dead
// agent; the hooks it left running would otherwise run on, parentless, beside their re-run).
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { sandboxed, type HookSandbox } from '#shared/provider/local/hook-sandbox.js';
import { isProcessAlive, processStartTime, type ProcessIdentity } from '#shared/provider/local/process-identity.js';

/** The groups this agent runs now, by leader pid. */
const running = new Map<number, ProcessIdentity>();
let recordsDir: string | undefined;
let sandbox: { sandbox: HookSandbox; machineDir: string } | undefined;

/** Where running groups are recorded; set once by the machine agent at start. */
export function recordHookGroupsIn(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  recordsDir = dir;
}

/**
 * Runs every later hook group inside `hookSandbox` with `machineDir` writable
 * (shared/provider/local/hook-sandbox.ts); set once by the machine agent at start, when its
 * provider asks for it. bwrap leads the group, so signalling the group still reaches the hook.
 */
export function sandboxHookGroups(hookSandbox: HookSandbox, machineDir: string): void {
  sandbox = { sandbox: hookSandbox, machineDir };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the whole group is gone
  }
}

/**
 * spawn() with no stdin and piped output, in a new process group (and session) that this agent
 * tracks until its leader exits.
 */
export function spawnHookGroup(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): ChildProcessByStdio<null, Readable, Readable> {
  const run = sandbox ? sandboxed(sandbox.sandbox, sandbox.machineDir, options.cwd, command, args) : { command, args };
  const child = spawn(run.command, run.args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid === undefined) return child; // the spawn failed: 'error' follows
  const startTime = processStartTime(pid);
  const identity: ProcessIdentity = { pid, ...(startTime ? { startTime } : {}) };
  running.set(pid, identity);
  const record = recordsDir ? join(recordsDir, String(pid)) : undefined;
  if (record) writeFileSync(record, JSON.stringify(identity), { mode: 0o600 });
  child.once('exit', () => {
    running.delete(pid);
    if (record) rmSync(record, { force: true });
  });
  return child;
}

/** Signals every group this agent runs now (SIGTERM when the agent is stopped). */
export function signalHookGroups(signal: NodeJS.Signals): void {
  for (const pid of running.keys()) signalGroup(pid, signal);
}

/**
 * SIGKILLs the groups recorded in `dir` by an agent that died, and forgets them; returns how many
 * were still there. A group outlives its leader while any member runs, and Linux never gives a
 * new process a pid still in use as a group id; so the group is ours unless a process with the
 * leader's pid runs under another start time (the pid was reused once the group was empty).
 */
export function killLeftoverHookGroups(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let killed = 0;
  for (const name of names) {
    const path = join(dir, name);
    let identity: ProcessIdentity | undefined;
    try {
      identity = JSON.parse(readFileSync(path, 'utf8')) as ProcessIdentity;
    } catch {
      identity = undefined; // half-written by an agent killed mid-write: its group is unknown
    }
    if (identity && Number.isInteger(identity.pid) && identity.pid > 0 && !running.has(identity.pid)) {
      const reused = processStartTime(identity.pid) !== undefined && !isProcessAlive(identity);
      if (!reused) {
        const wasRunning = isProcessAlive(identity);
        signalGroup(identity.pid, 'SIGKILL');
        if (wasRunning) killed++;
      }
    }
    rmSync(path, { force: true });
  }
  return killed;
}
