// Running one task's process. An action runs as Juju 3 runs it: through the charm's dispatch with
// JUJU_DISPATCH_PATH=actions/<name>, else actions/<name> itself (hook-process.ts). juju-exec runs
// its command with bash in the same hook context, killed after its timeout. Either way the
// process's output and exit status become the task's results, as Juju records them:
// `return-code`, and `stdout`/`stderr` when not empty (the keys action-set may not use).
import { EXEC_ACTION, type Task } from '#shared/domain/operations.js';
import { systemClock } from '../clock.js';
import { spawnHookGroup } from './hook-groups.js';
import { runHookProcess } from './hook-process.js';

export interface TaskRun {
  /** Why the task failed, in Juju's words; absent if the process exited 0. */
  failure?: string;
  results: Record<string, unknown>;
  /** The signal that killed the process, if one did. */
  signal: NodeJS.Signals | null;
}

export interface TaskProcessOptions {
  task: Pick<Task, 'unit' | 'action' | 'parameters'>;
  charmDir: string;
  env: Record<string, string>;
  onLine: (line: string) => void;
}

/** Output kept per stream, so a chatty command cannot outgrow the task's item. */
const MAX_OUTPUT_CHARS = 64 * 1024;

class Output {
  private text = '';
  add(chunk: string) {
    if (this.text.length < MAX_OUTPUT_CHARS) this.text = (this.text + chunk).slice(0, MAX_OUTPUT_CHARS);
  }
  get value() {
    return this.text;
  }
}

function results(code: number | null, stdout: Output, stderr: Output): Record<string, unknown> {
  return {
    'return-code': code ?? -1,
    ...(stdout.value ? { stdout: stdout.value } : {}),
    ...(stderr.value ? { stderr: stderr.value } : {}),
  };
}

const exitFailure = (code: number | null, signal: NodeJS.Signals | null) =>
  code === 0 ? undefined : code === null ? `signal: ${signal}` : `exit status ${code}`;

export async function runTask(options: TaskProcessOptions): Promise<TaskRun> {
  return options.task.action === EXEC_ACTION ? runExec(options) : runAction(options);
}

async function runAction({ task, charmDir, env, onLine }: TaskProcessOptions): Promise<TaskRun> {
  const stdout = new Output();
  const stderr = new Output();
  const ran = await runHookProcess({
    charmDir,
    dispatchPath: `actions/${task.action}`,
    env,
    onLine: (stream, line) => {
      (stream === 'stdout' ? stdout : stderr).add(`${line}\n`);
      onLine(line);
    },
  });
  if (ran.kind === 'missing') return { failure: `action not implemented on unit "${task.unit}"`, results: {}, signal: null };
  if (ran.kind === 'spawn-error') return { failure: `cannot run action: ${ran.message}`, results: {}, signal: null };
  const failure = exitFailure(ran.code, ran.signal);
  return { ...(failure ? { failure } : {}), results: results(ran.code, stdout, stderr), signal: ran.signal };
}

function runExec({ task, charmDir, env, onLine }: TaskProcessOptions): Promise<TaskRun> {
  const command = String(task.parameters.command ?? '');
  const timeoutSeconds = Number(task.parameters.timeout ?? 0);
  const stdout = new Output();
  const stderr = new Output();
  return new Promise((resolve) => {
    const child = spawnHookGroup('/bin/bash', ['-c', command], { cwd: charmDir, env });
    let timedOut = false;
    const timer =
      timeoutSeconds > 0
        ? // A child process's real time: the wall clock, whatever clock the agent runs on.
          systemClock.after(timeoutSeconds * 1000, () => {
            timedOut = true;
            // The whole group: a child of bash holding the output pipes would keep the task open.
            try {
              process.kill(-child.pid!, 'SIGKILL');
            } catch {
              // gone already
            }
          })
        : undefined;
    for (const [stream, output] of [
      [child.stdout, stdout],
      [child.stderr, stderr],
    ] as const) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        output.add(chunk);
        for (const line of chunk.split('\n').filter(Boolean)) onLine(line);
      });
    }
    child.once('error', (e) => {
      timer?.cancel();
      resolve({ failure: `cannot run command: ${e.message}`, results: {}, signal: null });
    });
    child.once('close', (code, signal) => {
      timer?.cancel();
      const failure = timedOut ? 'command timed out' : exitFailure(code, signal);
      resolve({ ...(failure ? { failure } : {}), results: results(code, stdout, stderr), signal: timedOut ? null : signal });
    });
  });
}
