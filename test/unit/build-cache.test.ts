// A build kept in a directory and made again only when an input changed
// (shared/build-cache/cached-build.mjs, what the `drover` bin's bundle is cached with). The build
// is a stand-in that counts its calls and reads the inputs it is given.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cachedBuild, recordedPath, STAMP } from '#shared/build-cache/cached-build.mjs';

const root = mkdtempSync(join(tmpdir(), 'drover-build-cache-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Inputs written just before a build are not trusted to be what it read (cached-build.mjs):
// these are dated in the past, as sources at rest are.
const aged = (path: string, text: string) => {
  writeFileSync(path, text);
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
};

let dir: string;
let sources: string;
let builds: number;

/** Writes its inputs, one after another, as the one output file. */
const concat = (inputs: string[]) => async () => {
  builds++;
  const text = inputs.map((path) => readFileSync(path, 'utf8')).join('');
  return { files: [{ path: 'out.txt', contents: text }], outputs: { file: 'out.txt' }, inputs };
};

beforeEach(() => {
  const case_ = mkdtempSync(join(root, 'case-'));
  dir = join(case_, 'out');
  sources = join(case_, 'src');
  mkdirSync(sources);
  builds = 0;
});

describe('cachedBuild', () => {
  it('builds once, then again only when an input changed', async () => {
    const a = join(sources, 'a.ts');
    aged(a, 'one');
    const build = concat([a]);
    expect(await cachedBuild({ dir, key: 'k', build })).toEqual({ built: true, outputs: { file: 'out.txt' } });
    expect(await cachedBuild({ dir, key: 'k', build })).toEqual({ built: false, outputs: { file: 'out.txt' } });
    expect(builds).toBe(1);

    aged(a, 'two');
    expect((await cachedBuild({ dir, key: 'k', build })).built).toBe(true);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('two');
    expect(builds).toBe(2);
  });

  it('does not build again for an input touched but not changed, and records it so the next check needs no hash', async () => {
    const a = join(sources, 'a.ts');
    aged(a, 'same');
    const build = concat([a]);
    await cachedBuild({ dir, key: 'k', build });
    aged(a, 'same'); // written again: a new mtime and ctime, the same contents
    expect((await cachedBuild({ dir, key: 'k', build })).built).toBe(false);
    const recorded = JSON.parse(readFileSync(join(dir, STAMP), 'utf8')).inputs[0];
    expect(recorded.mtimeMs).toBe(statSync(a).mtimeMs);
    expect(builds).toBe(1);
  });

  it('builds again when an input is gone, or for another key', async () => {
    const a = join(sources, 'a.ts');
    const b = join(sources, 'b.ts');
    aged(a, 'a');
    aged(b, 'b');
    await cachedBuild({ dir, key: 'k', build: concat([a, b]) });
    expect((await cachedBuild({ dir, key: 'other', build: concat([a, b]) })).built).toBe(true);
    rmSync(b);
    expect((await cachedBuild({ dir, key: 'other', build: concat([a]) })).built).toBe(true);
    expect(builds).toBe(3);
  });

  it('writes no stamp when an input was edited during the build or just before, so the next run builds again', async () => {
    const a = join(sources, 'a.ts');
    writeFileSync(a, 'fresh'); // just now
    await cachedBuild({ dir, key: 'k', build: concat([a]) });
    expect(() => statSync(join(dir, STAMP))).toThrow();
    await cachedBuild({ dir, key: 'k', build: concat([a]) });
    expect(builds).toBe(2);
  });

  it("stands for an installed package's files by its package.json: a reinstall changes it", async () => {
    expect(recordedPath('/p/node_modules/yaml/dist/index.js')).toBe('/p/node_modules/yaml/package.json');
    expect(recordedPath('/p/node_modules/@aws-sdk/core/dist/x.js')).toBe('/p/node_modules/@aws-sdk/core/package.json');
    expect(recordedPath('/p/node_modules/a/node_modules/b/c.js')).toBe('/p/node_modules/a/node_modules/b/package.json');
    expect(recordedPath('/p/cli/main.ts')).toBe('/p/cli/main.ts');

    const pkg = join(sources, 'node_modules', 'lib');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    aged(join(pkg, 'package.json'), '{"version":"1.0.0"}');
    aged(join(pkg, 'dist', 'index.js'), 'v1');
    const build = concat([join(pkg, 'dist', 'index.js')]);
    await cachedBuild({ dir, key: 'k', build });
    expect(JSON.parse(readFileSync(join(dir, STAMP), 'utf8')).inputs.map((i: { path: string }) => i.path)).toEqual([
      join(pkg, 'package.json'),
    ]);
    aged(join(pkg, 'package.json'), '{"version":"1.0.1"}');
    expect((await cachedBuild({ dir, key: 'k', build })).built).toBe(true);
  });
});
