// Data formats shared by the commands: JSON and YAML as documents, Go-style durations for
// --watch and friends.
import { stringify } from 'yaml';
import type { CliIo } from './io.js';
import { UsageError } from './errors.js';

export type DataFormat = 'json' | 'yaml';

export function formatData(value: unknown, format: DataFormat): string {
  return format === 'json' ? `${JSON.stringify(value)}\n` : stringify(value, { lineWidth: 0 });
}

export function printData(io: CliIo, value: unknown, format: DataFormat): void {
  io.stdout(formatData(value, format));
}

/** A --format value checked against what the command offers (commander's choices do the same, with usage exit). */
export function parseFormat<F extends string>(value: string, allowed: readonly F[]): F {
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`invalid value "${value}" for option --format: choose from ${allowed.join(', ')}`);
  return value as F;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration for the units people use: `5s`, `1m30s`, `500ms`, `2h`. */
export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text) {
    throw new UsageError(`invalid duration "${text}": use a number with a unit, such as 5s, 1m or 500ms`);
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]!]!, 0);
}

/** `1h2m`, `3m5s`, `42s`: how long something has been stuck. */
export function formatAge(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (h) return `${h}h${m}m`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

/** Waits, unless interrupted; true when interrupted. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
