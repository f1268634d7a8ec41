// Running one hook or action executable, as Juju 3's runner does
// (https://github.com/juju/juju/blob/3.6/worker/uniter/runner/runner.go): a charm with an
// executable `dispatch` at its root gets every hook and action through it, told which by
// JUJU_DISPATCH_PATH (`hooks/install`, `actions/backup`); any other charm runs the executable at
// that path itself. "If the hook doesn't exist, the agent continues without complaint; if it
// does, it is invoked without arguments in a specific environment, and its output is written to
// the unit agent's log."
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { systemClock } from '../clock.js';
import { spawnHookGroup } from './hook-groups.js';

/** How the executable was found, in Juju's words for the uniter's log. */
export type HookVia = 'hook dispatching script: dispatch' | 'explicit, bespoke hook script';

export type HookProcessResult =
  | { kind: 'missing'; why: 'missing' | 'not executable' }
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; via: HookVia }
  | { kind: 'spawn-error'; message: string; via: HookVia };

export interface HookProcessOptions {
  charmDir: string;
  /** `hooks/<hook>` or `actions/<action>`, relative to the charm directory: JUJU_DISPATCH_PATH. */
  dispatchPath: string;
  /** The environment; JUJU_DISPATCH_PATH is set from `dispatchPath`. */
  env: Record<string, string>;
  onLine: (stream: 'stdout' | 'stderr', line: string) => void;
}

/** What runs a hook: runHookProcess, or an in-process stand-in that speaks to the same tool server. */
export type HookRunner = (options: HookProcessOptions) => Promise<HookProcessResult>;

/** After the hook exits, how long its output pipes may stay open (a daemon it started may hold them). */
const OUTPUT_GRACE_MS = 500;

type Found = { kind: 'executable' } | { kind: 'missing'; why: 'missing' | 'not executable' };

function executable(path: string): Found {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return { kind: 'missing', why: 'missing' };
    if ((stat.mode & 0o111) === 0) return { kind: 'missing', why: 'not executable' };
    return { kind: 'executable' };
  } catch {
    return { kind: 'missing', why: 'missing' };
  }
}

/** The executable Juju would run for `dispatchPath`: the charm's `dispatch` if it has one. */
export function findExecutable(charmDir: string, dispatchPath: string): { path: string; via: HookVia } | Found {
  const dispatch = join(charmDir, 'dispatch');
  if (executable(dispatch).kind === 'executable') return { path: dispatch, via: 'hook dispatching script: dispatch' };
  const direct = join(charmDir, dispatchPath);
  const found = executable(direct);
  return found.kind === 'executable' ? { path: direct, via: 'explicit, bespoke hook script' } : found;
}

export async function runHookProcess(options: HookProcessOptions): Promise<HookProcessResult> {
  const found = findExecutable(options.charmDir, options.dispatchPath);
  if ('kind' in found) return found as Extract<HookProcessResult, { kind: 'missing' }>;
  const { path, via } = found;
  const env = { ...options.env, JUJU_DISPATCH_PATH: options.dispatchPath };
  return new Promise<HookProcessResult>((resolve) => {
    // Its own process group: see hook-groups.ts.
    const child = spawnHookGroup(path, [], { cwd: options.charmDir, env });
    let settled = false;
    const finish = (result: HookProcessResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    child.once('error', (e) => finish({ kind: 'spawn-error', message: e.message, via }));
    const streams = [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const;
    let open: number = streams.length;
    let exit: HookProcessResult | undefined;
    for (const [name, stream] of streams) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => options.onLine(name, line));
      stream.once('close', () => {
        open--;
        if (open === 0 && exit) finish(exit);
      });
    }
    child.once('exit', (code, signal) => {
      exit = { kind: 'exited', code, signal, via };
      if (open === 0) finish(exit);
      else
        // A child process's real time: the wall clock, whatever clock the agent runs on.
        systemClock.after(
          OUTPUT_GRACE_MS,
          () => {
            for (const [, stream] of streams) stream.destroy();
            finish(exit!);
          },
          { unref: true },
        );
    });
  });
}
