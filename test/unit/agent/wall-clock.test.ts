// No agent module reads the wall clock or schedules on it itself: each takes the Clock of
// agent/clock.ts, so tests move the agents' time instead of sleeping through it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const AGENT = join(ROOT, 'agent');
const CLOCK_MODULE = 'agent/clock.ts';
/** `Date.now`, `new Date()` and the timer globals (a method of the same name, `x.setInterval(`, is not one). */
const WALL_CLOCK = /\bDate\.now\b|\bnew Date\(\s*\)|(?<![.\w])(?:setTimeout|setInterval|setImmediate|clearTimeout|clearInterval)\s*\(/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every line of an agent module, outside the clock module, that reads the wall clock. */
export function wallClockReads(files: { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) =>
    path === CLOCK_MODULE ? [] : text.split('\n').flatMap((line, i) => (WALL_CLOCK.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('agent modules and the wall clock', () => {
  it('only agent/clock.ts reads Date.now, new Date() or the timer globals', () => {
    const files = sources(AGENT).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
    expect(files.length).toBeGreaterThan(20);
    expect(wallClockReads(files)).toEqual([]);
  });

  it('catches each way of reading it, and not a method that shares a name', () => {
    const reads = wallClockReads([
      { path: 'a.ts', text: 'const t = Date.now();' },
      { path: 'b.ts', text: 'stamp(new Date());' },
      { path: 'c.ts', text: 'setTimeout(go, 5);\nclearTimeout(t);' },
      { path: 'd.ts', text: 'timer.setInterval(10); new Date(at).toISOString();' },
      { path: CLOCK_MODULE, text: 'now: () => Date.now(),' },
    ]);
    expect(reads).toEqual([
      'a.ts:1: const t = Date.now();',
      'b.ts:1: stamp(new Date());',
      'c.ts:1: setTimeout(go, 5);',
      'c.ts:2: clearTimeout(t);',
    ]);
  });
});
