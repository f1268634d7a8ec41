// One way of doing each thing: where a shared helper exists, no file spells it out by hand
// (test/support/one-way.ts lists the helpers and the copies each replaces). Each rule is shown
// catching a copy first, then passing every git-tracked source file.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { errorMessage, errorStack } from '#shared/domain/errors.js';
import { findHandWrittenCopies } from '../support/one-way.js';
import { silentLogger } from '../support/silent-logger.js';
import { waitFor } from '../support/wait-for.js';
import type { RepoFile } from '../support/repository-references.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const files: RepoFile[] = tracked
  .filter((path) => /\.(?:ts|tsx|mts|mjs|js)$/.test(path) && existsSync(join(ROOT, path)))
  .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));

// Copies, spelled in pieces so that this file does not contain them.
const asError = '(e as ' + 'Error)';
const isError = 'e instanceof ' + 'Error ?';
// A source file in a top folder, named so that this file mentions no path that does not exist.
const source = (folder: string, text: string) => ({ path: `${folder}/example.ts`, text });

describe('one way of reading a caught error', () => {
  it('errorMessage reads any thrown value: an Error, an error from another realm, anything else', () => {
    expect(errorMessage(new TypeError('bad type'))).toBe('bad type');
    expect(errorMessage({ name: 'Error', message: 'from a worker', stack: 'Error: from a worker\n    at x' })).toBe('from a worker');
    expect(errorMessage('a string')).toBe('a string');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage(null)).toBe('null');
    expect(errorMessage({ message: 7 })).toBe('[object Object]');
  });

  it('errorStack gives the stack when there is one, else the message', () => {
    const e = new Error('boom');
    expect(errorStack(e)).toBe(e.stack);
    expect(errorStack(e)).toMatch(/^Error: boom\n\s+at /);
    expect(errorStack({ message: 'no stack' })).toBe('no stack');
    expect(errorStack('text')).toBe('text');
  });

  it('catches the hand-written variants, naming the helper', () => {
    const found = findHandWrittenCopies([
      source('cli', `x;\nthrow new CliError(\`cannot read: \${${asError}.message}\`);`),
      source('agent', `log(\`failed: \${${asError}.stack ?? String(e)}\`);`),
      source('shared', `const m = (e: unknown) => (${isError} e.message : String(e));`),
      source('test', `problems.push(${isError} (e.stack ?? e.message) : String(e));`),
      source('bench', `expect((error as ${'Error'})?.message).toBe('x');`),
      { path: 'shared/domain/errors.ts', text: `return ${isError} e.message : String(e);` },
      { path: 'README.md', text: `${asError}.message` },
      source('embedded', `if (${isError} e : new Error(String(e)));\nerrorMessage(e);`),
    ]);
    expect(found.map((f) => `${f.path.split('/')[0]}:${f.line}`)).toEqual(['cli:2', 'agent:1', 'shared:1', 'test:1', 'bench:1']);
    expect(found[0]!.what).toBe('use errorMessage(e) / errorStack(e) from shared/domain/errors.ts');
  });

  it('in every tracked source file', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(findHandWrittenCopies(files)).toEqual([]);
  });
});

describe('one way of waiting on a process or a server', () => {
  it('catches a polling helper of its own, naming the shared one', () => {
    const found = findHandWrittenCopies([
      source('test', `async function ${'even' + 'tually'}<T>(probe: () => T) {}`),
      source('bench', `const ${'wait' + 'Until'} = async (c: () => boolean) => {};`),
      source('test', `import { waitFor } from '../support/wait-for.js';\nawait waitFor('x', probe, ok);`),
      { path: 'test/support/wait-for.ts', text: `export async function ${'wait' + 'For'}<T>() {}` },
    ]);
    expect(found.map((f) => `${f.path.split('/')[0]}:${f.line}:${f.what}`)).toEqual([
      'test:1:use waitFor from test/support/wait-for.ts',
      'bench:1:use waitFor from test/support/wait-for.ts',
    ]);
  });

  it('waitFor gives the value once it is right, and names what never happened', async () => {
    let n = 0;
    expect(
      await waitFor(
        'n to reach 3',
        () => ++n,
        (v) => v >= 3,
        5_000,
        1,
      ),
    ).toBe(3);
    await expect(
      waitFor(
        'a miracle',
        () => 'nothing',
        (v) => v === 'miracle',
        0,
        1,
      ),
    ).rejects.toThrow('timed out waiting for a miracle; last saw "nothing"');
  });
});

describe('one way of a logger that says nothing', () => {
  it('catches a silent logger of its own in tests and benches, naming the shared one', () => {
    const quiet = '() => ' + 'undefined';
    const found = findHandWrittenCopies([
      source('test', `const SILENT = { error: ${quiet}, warn: ${quiet} } as never;`),
      source('bench', `handler({ logger: { info: ${quiet} } as never });`),
      source('test', `handler({ logger: silentLogger, log: ${quiet} });`),
      source('shared', `export const silentLog = { info: ${quiet} };`),
      { path: 'test/support/silent-logger.ts', text: `export const silentLogger = { debug: ${quiet} };` },
    ]);
    expect(found.map((f) => `${f.path.split('/')[0]}:${f.line}:${f.what}`)).toEqual([
      'test:1:use silentLogger from test/support/silent-logger.ts',
      'bench:1:use silentLogger from test/support/silent-logger.ts',
    ]);
  });

  it('silentLogger takes every level and says nothing', () => {
    const write = vi.spyOn(process.stdout, 'write');
    const warn = vi.spyOn(console, 'warn');
    try {
      for (const level of ['debug', 'info', 'warn', 'error'] as const) expect(silentLogger[level]('a message', { a: 1 })).toBeUndefined();
      expect(write).not.toHaveBeenCalled();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
      warn.mockRestore();
    }
  });
});
