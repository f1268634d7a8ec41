// The `drover` bin's bundles (cli/launch/cli-bundle.mjs), built from a stand-in CLI in a temporary
// directory (an entry that imports './program.js', as cli/main.ts does), by child processes that
// load them as the bin does: built on the first run, again only when a source changed, and two
// first runs at once both work.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/cli.js';

const LAUNCHER = pathToFileURL(join(REPO, 'cli', 'launch', 'cli-bundle.mjs')).href;

let sources: string;
let entry: string;

// Sources written just before a build are not trusted to be what esbuild read (cached-build.mjs):
// these are dated in the past, as sources at rest are.
const writeAged = (path: string, text: string) => {
  writeFileSync(path, text);
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
};

beforeAll(() => {
  sources = mkdtempSync(join(tmpdir(), 'drover-cli-bundle-test-'));
  entry = join(sources, 'main.ts');
  writeAged(
    entry,
    "export async function main(): Promise<void> {\n  const { greet } = await import('./program.js');\n  console.log(greet(process.argv.at(-1) ?? ''));\n}\n",
  );
  writeAged(
    join(sources, 'program.ts'),
    "import { greeting } from './greeting.js';\nexport const greet = (who: string): string => `${greeting} ${who}`;\n",
  );
  writeAged(join(sources, 'greeting.ts'), "export const greeting = 'hello';\n");
});

afterAll(() => rmSync(sources, { recursive: true, force: true }));

/**
 * A process that runs the stand-in CLI as the bin runs drover's: loadCli, main, saveCodeCache;
 * `who` is its one argument (with `node -e`, process.argv[1]).
 */
function runBin(dir: string, who: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `const { loadCli } = await import(${JSON.stringify(LAUNCHER)});
const cli = await loadCli({ entry: ${JSON.stringify(entry)}, dir: ${JSON.stringify(dir)}, argv: process.argv.slice(1) });
await cli.main();
cli.saveCodeCache();`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, who], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const filesOf = (dir: string) => readdirSync(dir).sort();
const inode = (path: string) => statSync(path).ino;

describe("the drover bin's bundles", () => {
  it('are built on the first run, kept while no source changes, and built again when one does', async () => {
    const dir = join(sources, 'cache-rebuild');
    expect(await runBin(dir, 'world')).toEqual({ code: 0, stdout: 'hello world\n', stderr: '' });
    const first = filesOf(dir);
    expect(first).toEqual([
      expect.stringMatching(/^drover-cli-\w+\.cjs$/),
      expect.stringMatching(/^drover-program-\w+\.cjs$/),
      expect.stringMatching(/^drover-program-\w+\.cjs\.world\.v8-cache$/),
      'inputs.json',
    ]);
    const stamp = inode(join(dir, 'inputs.json'));
    const codeCache = inode(join(dir, first[2]!));

    // Every file is written by rename, so a rebuild (or a new code cache) would be a new inode.
    // The code cache is the first argument's (the command's): written on its first run, then used.
    expect(await runBin(dir, 'world')).toEqual({ code: 0, stdout: 'hello world\n', stderr: '' });
    expect(filesOf(dir)).toEqual(first);
    expect(inode(join(dir, 'inputs.json'))).toBe(stamp);
    expect(inode(join(dir, first[2]!))).toBe(codeCache);

    writeAged(join(sources, 'greeting.ts'), "export const greeting = 'good day';\n");
    try {
      expect(await runBin(dir, 'world')).toEqual({ code: 0, stdout: 'good day world\n', stderr: '' });
      expect(inode(join(dir, 'inputs.json'))).not.toBe(stamp);
      // The new program beside the old one (removed once an hour old): a process started before may still load it.
      expect(filesOf(dir).filter((f) => /^drover-program-\w+\.cjs$/.test(f))).toHaveLength(2);
    } finally {
      writeAged(join(sources, 'greeting.ts'), "export const greeting = 'hello';\n");
    }
  });

  it('work for two first runs started at once', async () => {
    const dir = join(sources, 'cache-concurrent');
    const [one, two] = await Promise.all([runBin(dir, 'one'), runBin(dir, 'two')]);
    expect(one).toEqual({ code: 0, stdout: 'hello one\n', stderr: '' });
    expect(two).toEqual({ code: 0, stdout: 'hello two\n', stderr: '' });
    expect(filesOf(dir)).toContain('inputs.json');
    expect(filesOf(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
