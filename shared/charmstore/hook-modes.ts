// Declared hooks made owner-executable in an unpacked charm, as Juju's agent does when it expands
// a charm (fixHookFunc, https://github.com/juju/juju/blob/3.6/internal/charm/charmarchive.go; its
// directory packer does the same, charmdir.go): a charm directory whose hooks lost their execute
// bit (a checkout, a copy through a tool that drops modes) still runs them. Only files directly in
// hooks/ named as metadata.yaml declares a hook are changed; symlinks and everything else are left.
import { chmod, lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { declaredHooks } from '../domain/charm-hooks.js';
import { parseYaml } from '../domain/yaml.js';

export async function makeDeclaredHooksExecutable(charmDir: string): Promise<void> {
  let metadata: unknown;
  let names: string[];
  try {
    metadata = parseYaml(await readFile(join(charmDir, 'metadata.yaml'), 'utf8'));
    names = await readdir(join(charmDir, 'hooks'));
  } catch {
    return; // no metadata (it was checked at deploy), or no hooks/: nothing to make executable
  }
  const hooks = declaredHooks(metadata);
  for (const name of names) {
    if (!hooks.has(name)) continue;
    const path = join(charmDir, 'hooks', name);
    const stat = await lstat(path);
    if (stat.isFile() && (stat.mode & 0o100) === 0) await chmod(path, (stat.mode & 0o7777) | 0o100);
  }
}
