// Running one hook executable: "Hooks are executable files in a charm's hooks directory ... If
// the hook doesn't exist, the agent continues without complaint; if it does, it is invoked
// without arguments in a specific environment, and its output is written to the unit agent's log."
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export type HookProcessResult =
  | { kind: 'missing'; why: 'missing' | 'not executable' }
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'spawn-error'; message: string };

export interface HookProcessOptions {
  charmDir: string;
  name: string;
  env: Record<string, string>;
  onLine: (stream: 'stdout' | 'stderr', line: string) => void;
}

/** After the hook exits, how long its output pipes may stay open (a daemon it started may hold them). */
const OUTPUT_GRACE_MS = 500;

export function hookPath(charmDir: string, name: string): string {
  return join(charmDir, 'hooks', name);
}

export async function runHookProcess(options: HookProcessOptions): Promise<HookProcessResult> {
  const path = hookPath(options.charmDir, options.name);
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return { kind: 'missing', why: 'missing' };
    if ((stat.mode & 0o111) === 0) return { kind: 'missing', why: 'not executable' };
  } catch {
    return { kind: 'missing', why: 'missing' };
  }
  return new Promise<HookProcessResult>((resolve) => {
    const child = spawn(path, [], { cwd: options.charmDir, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let settled = false;
    const finish = (result: HookProcessResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    child.once('error', (e) => finish({ kind: 'spawn-error', message: e.message }));
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
      exit = { kind: 'exited', code, signal };
      if (open === 0) finish(exit);
      else
        setTimeout(() => {
          for (const [, stream] of streams) stream.destroy();
          finish(exit!);
        }, OUTPUT_GRACE_MS).unref();
    });
  });
}
