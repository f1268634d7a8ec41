// CPU time of processes other than this one, from /proc/<pid>/stat (Linux): user + system time of
// the process and of its children it has waited for (a machine agent's hooks, and the hook
// tools those hooks ran), in seconds.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;
const clockTicks = () => (ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);

/** utime + stime + cutime + cstime in seconds; 0 once the process is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command: [0] is field 3, so utime (14) … cstime (17) are [11..14].
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
    return ticks / clockTicks();
  } catch {
    return 0;
  }
}

/** The pid of the one process whose command line holds every given fragment, if there is one. */
export function findProcess(...fragments: string[]): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (fragments.every((f) => cmdline.includes(f))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** This process's CPU time so far, in seconds (the bench's in-process controller). */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** The calling thread's CPU time so far (user + system), in seconds: /proc/thread-self/stat. */
export function threadCpuSeconds(): number {
  const text = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / clockTicks();
}
