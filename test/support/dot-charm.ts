// Charms packed as charmcraft packs them: a zip made with Python's zipfile, which keeps each
// file's Unix mode in the external attributes (and symlinks as links).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Packs a charm directory as a `.charm`; `extra` entries are added as given (modes included). */
export function packDotCharm(dir: string, extra: Array<{ name: string; mode: number; data: string }> = []): string {
  const out = join(mkdtempSync(join(tmpdir(), 'dot-charm-')), `${dir.split('/').pop()}_ubuntu-22.04-amd64.charm`);
  const script = `
import json, os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for root, dirs, files in os.walk(src):
        for name in sorted(files):
            path = os.path.join(root, name)
            z.write(path, os.path.relpath(path, src))
    for e in json.load(sys.stdin):
        info = zipfile.ZipInfo(e['name'])
        info.create_system = 3
        info.external_attr = e['mode'] << 16
        z.writestr(info, e['data'])
`;
  execFileSync('python3', ['-c', script, dir, out], { input: JSON.stringify(extra) });
  return out;
}
