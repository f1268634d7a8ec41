// The unit agent stays a loop, an executor and one module per kind of step (agent/uniter/steps/):
// a file of agent/uniter/ past 300 lines is a second job that wants its own module (secrets and
// storage hooks are steps of their own, not more lines in uniter.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const MAX_LINES = 300;

/** Lines as `wc -l` counts them: a file's closing newline ends its last line, not a new one. */
const linesOf = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('agent/uniter/', () => {
  it(`has no file over ${MAX_LINES} lines`, () => {
    const files = sources(join(ROOT, 'agent/uniter'));
    expect(files.length).toBeGreaterThan(10);
    const long = files
      .map((path) => ({ path: relative(ROOT, path), lines: linesOf(readFileSync(path, 'utf8')) }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
