// Runs `drover ssh`'s and `scp`'s child (a local shell, or the system ssh and scp) with the user's
// own terminal, and exits as it did: Juju's ssh passes the remote command's exit status through.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';

export interface ChildCommand {
  program: string;
  args: string[];
  cwd?: string;
  env: Record<string, string | undefined>;
}

/** The child's exit status: its code, or 128 + the signal's number, as a shell reports it. */
export function runChild(io: CliIo, child: ChildCommand): Promise<number> {
  return new Promise((resolve, reject) => {
    const process = spawn(child.program, child.args, {
      cwd: child.cwd,
      env: child.env as NodeJS.ProcessEnv,
      // In-process (tests) there is no terminal to hand over: no input, and the output captured.
      stdio: io.ownStdio ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const restoreInterrupts = io.ownStdio?.leaveInterruptsToChild();
    process.stdout?.setEncoding('utf8').on('data', (text: string) => io.stdout(text));
    process.stderr?.setEncoding('utf8').on('data', (text: string) => io.stderr(text));
    process.once('error', (e: NodeJS.ErrnoException) => {
      restoreInterrupts?.();
      reject(new CliError(e.code === 'ENOENT' ? `${child.program} not found: it must be installed and on PATH` : e.message));
    });
    process.once('close', (code, signal) => {
      restoreInterrupts?.();
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}

/** Exits drover with the child's status, as Juju's RcPassthroughError does. */
export async function runChildAndExit(io: CliIo, child: ChildCommand): Promise<void> {
  const status = await runChild(io, child);
  if (status !== 0) throw new ExitCode(status);
}
