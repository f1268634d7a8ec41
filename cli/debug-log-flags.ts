// debug-log's flags as Juju 3.6 reads them (https://github.com/juju/juju/blob/3.6/cmd/juju/commands/debuglog.go):
// which level, how many lines first, and whether to follow the log afterwards.
import { InvalidArgumentError } from 'commander';
import { parseLogLevel, type LogLevel } from '#shared/logs/log-sink.js';

/** --replay, --limit 0 and following: as much as the controller gives in one answer. */
export const TAIL_LIMIT = 10_000;

export interface DebugLogFlags {
  include?: string[];
  exclude?: string[];
  level?: LogLevel;
  lines: number;
  limit: number;
  replay?: boolean;
  /** --tail (true), --no-tail (false), or neither. */
  tail?: boolean;
}

const SHOWN_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR'];

/** Juju's check: any case, WARN for WARNING, and not CRITICAL. */
export function debugLogLevel(value: string): LogLevel {
  const level = parseLogLevel(value);
  if (!level || !SHOWN_LEVELS.includes(level)) {
    throw new InvalidArgumentError(`level value "${value}" is not one of ${SHOWN_LEVELS.map((l) => `"${l}"`).join(', ')}`);
  }
  return level;
}

export interface DebugLogPlan {
  /** How many of the most recent lines the first read asks for. */
  firstLimit: number;
  /** Whether to go on reading new lines after them. */
  follow: boolean;
}

/**
 * Juju's rules: `--limit N` shows the N most recent lines and exits; `--replay` the whole log;
 * else the last `--lines`. Without --tail or --no-tail, the log is followed only when stdout is
 * a terminal, so a script (or a test harness capturing the output) gets the lines and an exit.
 */
export function debugLogPlan(flags: DebugLogFlags, stdoutIsTTY: boolean): DebugLogPlan {
  if (flags.limit > 0) return { firstLimit: Math.min(flags.limit, TAIL_LIMIT), follow: false };
  const firstLimit = flags.replay ? TAIL_LIMIT : Math.min(flags.lines, TAIL_LIMIT);
  return { firstLimit, follow: flags.tail ?? stdoutIsTTY };
}
