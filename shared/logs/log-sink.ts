// The controller's log of what agents report (hook output, juju-log, the agents' own messages),
// which `drover debug-log` reads. charms-in-action.txt: a hook's "output is written to the unit
// agent's log", which in Juju is what `juju debug-log` shows.
//
// A port with two homes: locally a file under the controller's data directory
// (file-log-sink.ts); on AWS the API function writes each record as a line on its stdout, which
// Lambda ships to CloudWatch Logs (lambda-log-sink.ts), where debug-log reads them back with
// FilterLogEvents (cloudwatch-log-reader.ts).
import { DEFAULT_MODEL } from '../domain/models.js';

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogRecord {
  /**
   * The key of the agent's model (shared/domain/models.ts): entity tags repeat across models.
   * Absent on records written before there were many models: bootstrap's model's.
   */
  model?: string;
  /** The agent's entity tag: `unit-mysql-0`, `machine-0`. */
  entity: string;
  /** ISO 8601. */
  time: string;
  level: LogLevel;
  /** Juju's logger name: `unit.mysql/0.juju-log`, `juju.worker.uniter`. */
  module: string;
  message: string;
}

export interface LogQuery {
  /** Only the records of this model (its key); absent: every model's. */
  model?: string;
  /** Only records after this cursor (from an earlier page): tailing. */
  after?: string;
  /** Only records at or after this time (ISO 8601). */
  since?: string;
  /** Entities to show (tags, unit or application names, machine ids, `*` globs); empty: all. */
  include?: string[];
  exclude?: string[];
  /** The least severe level to show. */
  level?: LogLevel;
  /** Without `after`: the last `limit` matching records. With it: the first `limit` after it. */
  limit: number;
}

export interface LogPage {
  records: LogRecord[];
  /** Where the next read continues (pass as `after`). */
  cursor: string;
}

export interface LogSink {
  append(records: LogRecord[]): Promise<void>;
  read(query: LogQuery): Promise<LogPage>;
}

export const isLogLevel = (s: string): s is LogLevel => (LOG_LEVELS as readonly string[]).includes(s);

/** Juju accepts WARN for WARNING, and any case. */
export function parseLogLevel(s: string): LogLevel | undefined {
  const upper = s.toUpperCase();
  const level = upper === 'WARN' ? 'WARNING' : upper;
  return isLogLevel(level) ? level : undefined;
}

const two = (n: number) => String(n).padStart(2, '0');

/** `unit-mysql-0: 12:34:56 INFO unit.mysql/0.juju-log message`, as `juju debug-log` prints. */
export function formatLogLine(r: LogRecord): string {
  const d = new Date(r.time);
  const clock = Number.isNaN(d.getTime()) ? r.time : `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return `${r.entity}: ${clock} ${r.level} ${r.module} ${r.message}`;
}

/** The entity tag of a unit name (`mysql/0` → `unit-mysql-0`) or machine id (`0` → `machine-0`). */
export function entityTag(name: string): string {
  if (/^\d+$/.test(name)) return `machine-${name}`;
  if (name.includes('/')) return `unit-${name.replace('/', '-')}`;
  return name;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);
}

/** One include/exclude filter → a test on entity tags. A bare application name means all its units. */
export function entityMatcher(filter: string): (entity: string) => boolean {
  if (/^[a-z][a-z0-9-]*$/.test(filter) && !/^(unit|machine)-/.test(filter)) {
    const re = globToRegExp(`unit-${filter}-*`);
    return (e) => re.test(e) && /^\d+$/.test(e.slice(`unit-${filter}-`.length));
  }
  const re = globToRegExp(entityTag(filter));
  return (e) => re.test(e);
}

export function recordMatches(record: LogRecord, query: Omit<LogQuery, 'limit' | 'after'>): boolean {
  if (query.model !== undefined && (record.model ?? DEFAULT_MODEL) !== query.model) return false;
  if (query.level && LOG_LEVELS.indexOf(record.level) < LOG_LEVELS.indexOf(query.level)) return false;
  if (query.since && record.time < query.since) return false;
  if (query.include?.length && !query.include.some((f) => entityMatcher(f)(record.entity))) return false;
  if (query.exclude?.length && query.exclude.some((f) => entityMatcher(f)(record.entity))) return false;
  return true;
}
