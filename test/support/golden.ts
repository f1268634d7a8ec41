// Golden files: the expected output of a command, kept in test/golden/<name> (a .golden suffix
// keeps prettier off them). A missing golden file is a failure, never written silently: a
// deleted file would otherwise pass and go on passing. DROVER_UPDATE_GOLDEN=1 (re)writes them.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';

export const UPDATE_GOLDEN_ENV = 'DROVER_UPDATE_GOLDEN';

/** Asserts that `actual` equals the golden file dir/name; writes it only when asked to. */
export async function expectGoldenFile(dir: string, name: string, actual: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const path = join(dir, name);
  if (env[UPDATE_GOLDEN_ENV] === '1') await writeFile(path, actual);
  else if (!existsSync(path))
    throw new Error(`golden file ${path} is missing: run the test with ${UPDATE_GOLDEN_ENV}=1 to write it, review it, and commit it`);
  expect(actual).toBe(await readFile(path, 'utf8'));
}
