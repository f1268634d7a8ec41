// A golden file that is missing fails the test that reads it (a deleted golden file must not
// pass), and is written only when DROVER_UPDATE_GOLDEN=1 asks for it.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGoldenFile } from '../support/golden.js';

describe('golden files', () => {
  it('a missing golden file is a failure that says how to write it, and nothing is written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drover-golden-'));
    await expect(expectGoldenFile(dir, 'x.golden', 'output\n', {})).rejects.toThrow(
      /x\.golden is missing: run the test with DROVER_UPDATE_GOLDEN=1/,
    );
    expect(existsSync(join(dir, 'x.golden'))).toBe(false);
  });

  it('DROVER_UPDATE_GOLDEN=1 writes it; without it a different output fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drover-golden-'));
    await expectGoldenFile(dir, 'x.golden', 'output\n', { DROVER_UPDATE_GOLDEN: '1' });
    expect(await readFile(join(dir, 'x.golden'), 'utf8')).toBe('output\n');
    await expectGoldenFile(dir, 'x.golden', 'output\n', {});
    await writeFile(join(dir, 'x.golden'), 'other\n');
    await expect(expectGoldenFile(dir, 'x.golden', 'output\n', {})).rejects.toThrow();
  });
});
