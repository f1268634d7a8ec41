// Is the process we started still the one running under its pid? Pids are reused, so a pid alone
// could make the local provider adopt (or kill!) an unrelated process after a reboot or a long
// uptime. On Linux a process is identified by its pid together with its start time: field 22 of
// /proc/<pid>/stat, in clock ticks since boot, fixed at fork and never reused with the same pid.
// Elsewhere (no /proc) only the pid can be checked.
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** /proc start time; absent where the platform has none, and then only the pid is compared. */
  startTime?: string;
}

type Stat = { state: string; startTime: string } | 'gone' | 'unsupported';

let procAvailable: boolean | undefined;
function hasProc(): boolean {
  if (procAvailable === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procAvailable = true;
    } catch {
      procAvailable = false;
    }
  }
  return procAvailable;
}

// Synchronous on purpose: the provider reads a child's start time right after spawning it and
// records it in the same synchronous step, so no crash can fall between the two (see agent-process.ts).
function readStat(pid: number): Stat {
  if (!hasProc()) return 'unsupported';
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 'gone';
  }
  // Field 2 (comm) is parenthesised and may itself hold spaces and parentheses: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
  const state = fields[0] ?? '';
  const startTime = fields[19] ?? '';
  return { state, startTime };
}

/** The start time of a running process, or undefined when it is gone or the platform has no /proc. */
export function processStartTime(pid: number): string | undefined {
  const stat = readStat(pid);
  return typeof stat === 'object' && !isDefunct(stat.state) ? stat.startTime : undefined;
}

// A zombie (Z) or dead (X) process has exited; only its parent has not collected it yet.
const isDefunct = (state: string) => state === 'Z' || state === 'X';

/** True while the process that had this identity is still running. */
export function isProcessAlive(identity: ProcessIdentity): boolean {
  if (!Number.isInteger(identity.pid) || identity.pid <= 0) return false;
  const stat = readStat(identity.pid);
  if (stat === 'gone') return false;
  if (stat === 'unsupported') {
    try {
      process.kill(identity.pid, 0);
      return true;
    } catch {
      // EPERM: it exists but belongs to someone else, so it is certainly not our agent.
      return false;
    }
  }
  if (isDefunct(stat.state)) return false;
  return identity.startTime === undefined || identity.startTime === stat.startTime;
}
