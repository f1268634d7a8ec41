// Every state operation keeps the shape shared/state/engine/run-operation.ts describes: its
// attempt reads through the store it is given (a speculative attempt's is the cache's view, so an
// attempt reading through the outer store would silently skip it), and what to change is decided
// by a pure plan in shared/domain/plans/, never spelled out in the state layer.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const STATE = join(REPO, 'shared', 'state');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/**
 * Attempts (given to runOperation inline, or declared as an Attempt) whose parameter is not named
 * `store`. Named so, it shadows the operation's own store: nothing inside the attempt can name the
 * outer one, so every read goes through the store the attempt is given. An attempt that takes
 * nothing, or names it otherwise, could read through the outer store and skip a speculation.
 */
export function attemptsIgnoringTheirStore(text: string): number[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) => {
    if (!/runOperation\b|: Attempt</.test(line)) return [];
    const start = lines.slice(i, i + 4).join('\n');
    const parameters = /async \(([^)]*)\)\s*=>/.exec(start)?.[1];
    return parameters !== undefined && parameters.trim() !== 'store' ? [i + 1] : [];
  });
}

/** Lines that spell a change (`op: '…'`) or a plan's change list outside shared/domain/plans. */
export function decisionsSpelledOut(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (/\bop: '(create|update|remove|check)'|\bchanges: \[\s*[{\]]/.test(line) ? [i + 1] : []));
}

describe('state operations', () => {
  it('the checks catch an attempt that ignores its store and a change spelled out in the state layer', () => {
    const bad = [
      "await runOperation(store, 'x', async () => {",
      '  const unit = await getUnit(store, name);',
      "  return { changes: [{ op: 'update', ref: refs.unit(name), set: {} }], result: undefined };",
      '});',
    ].join('\n');
    expect(attemptsIgnoringTheirStore(bad)).toEqual([1]);
    expect(decisionsSpelledOut(bad)).toEqual([3]);
    const renamed = 'const attempt: Attempt<void> = async (view) => planX(await getUnit(store, name), name);';
    expect(attemptsIgnoringTheirStore(renamed)).toEqual([1]);
    const good = "await runOperation(store, 'x', async (store) => planX(await getUnit(store, name), name));";
    expect(attemptsIgnoringTheirStore(good)).toEqual([]);
    expect(attemptsIgnoringTheirStore('const attempt: Attempt<void> = async (store) => planX(await getUnit(store, name));')).toEqual([]);
    expect(decisionsSpelledOut(good)).toEqual([]);
  });

  it('read through the store their attempt is given, and leave every decision to a plan', () => {
    const found: string[] = [];
    for (const file of sources(STATE)) {
      const text = readFileSync(file, 'utf8');
      const where = relative(REPO, file);
      for (const line of attemptsIgnoringTheirStore(text))
        found.push(`${where}:${line}: the attempt does not shadow the outer store with the one it is given`);
      if (!where.includes('/engine/'))
        for (const line of decisionsSpelledOut(text)) found.push(`${where}:${line}: a change decided outside shared/domain/plans`);
    }
    expect(found).toEqual([]);
  });
});
