import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unpackCharmArchive } from '#shared/charmstore/charm-unpack.js';
import { charmZipToArchive, readCharmZip, rootFile } from '#shared/charmstore/charm-zip.js';
import { isDroverError, errorMessage } from '#shared/domain/errors.js';

interface ZipSpec {
  name: string;
  /** Unix mode including the file type, e.g. 0o100755; a symlink's data is its target. */
  mode?: number;
  data?: string;
  /** A run of this many zero bytes instead of data (compresses ~1000:1). */
  zeros?: number;
}

/** A zip built with Python's zipfile, which sets any name and external attributes we ask for. */
function zip(entries: ZipSpec[]): Buffer {
  const script = `
import io, json, sys, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
    for e in json.load(sys.stdin):
        info = zipfile.ZipInfo(e['name'])
        info.create_system = 3
        info.compress_type = zipfile.ZIP_DEFLATED
        if e.get('mode') is not None:
            info.external_attr = e['mode'] << 16
        z.writestr(info, b'\\0' * e['zeros'] if e.get('zeros') else e.get('data', '').encode())
sys.stdout.buffer.write(buf.getvalue())
`;
  return execFileSync('python3', ['-c', script], { input: JSON.stringify(entries), maxBuffer: 64 * 1024 * 1024 });
}

const charm: ZipSpec[] = [
  { name: 'metadata.yaml', mode: 0o100644, data: 'name: packed\n' },
  { name: 'manifest.yaml', mode: 0o100644, data: 'bases: [{name: ubuntu, channel: "22.04", architectures: [amd64]}]\n' },
  { name: 'dispatch', mode: 0o100755, data: '#!/bin/sh\nexec ./src/charm.py\n' },
  { name: 'src/', mode: 0o040755 },
  { name: 'src/charm.py', mode: 0o100755, data: '#!/usr/bin/env python3\n' },
  { name: 'hooks/install', mode: 0o120777, data: '../dispatch' },
];

async function refusal(bytes: Buffer, limits?: { entries: number; bytes: number }): Promise<string> {
  try {
    await readCharmZip(bytes, limits);
  } catch (e) {
    expect(isDroverError(e, 'invalid-argument')).toBe(true);
    return errorMessage(e);
  }
  throw new Error('the archive was accepted');
}

describe('charm zips (.charm as charmcraft packs it)', () => {
  it('converts to the stored tar.gz keeping executable bits and in-charm symlinks', async () => {
    const out = mkdtempSync(join(tmpdir(), 'charm-zip-'));
    await unpackCharmArchive(await charmZipToArchive(zip(charm)), out);
    expect(readFileSync(join(out, 'metadata.yaml'), 'utf8')).toBe('name: packed\n');
    expect(statSync(join(out, 'dispatch')).mode & 0o777).toBe(0o755);
    expect(statSync(join(out, 'src', 'charm.py')).mode & 0o111).not.toBe(0);
    expect(statSync(join(out, 'metadata.yaml')).mode & 0o111).toBe(0);
    expect(readlinkSync(join(out, 'hooks', 'install'))).toBe('../dispatch');
  });

  it('reads what the zip tool writes (charmcraft packs with Python zipfile, same format)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'charm-zip-src-'));
    execFileSync('sh', ['-c', `printf 'name: z\\n' > metadata.yaml && printf '#!/bin/sh\\n' > dispatch && chmod 755 dispatch`], {
      cwd: dir,
    });
    const file = join(dir, 'z.charm');
    execFileSync('zip', ['-q', '-r', file, 'metadata.yaml', 'dispatch'], { cwd: dir });
    const entries = await readCharmZip(readFileSync(file));
    expect(rootFile(entries, 'metadata.yaml')).toBe('name: z\n');
    expect(entries.find((e) => e.path === 'dispatch')?.mode).toBe(0o755);
  });

  it('refuses a file that is not a zip', async () => {
    expect(await refusal(Buffer.from('name: x\n'))).toMatch(/^invalid charm archive: not a zip file/);
    // The right magic, then garbage: no central directory.
    expect(await refusal(Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 7)]))).toMatch(
      /^invalid charm archive: not a zip file/,
    );
  });

  it('refuses paths that leave the charm, absolute or with ..', async () => {
    expect(await refusal(zip([{ name: '../evil', mode: 0o100644, data: 'x' }]))).toMatch(/^invalid charm archive: .*\.\.\/evil/);
    expect(await refusal(zip([{ name: 'hooks/../../evil', mode: 0o100644, data: 'x' }]))).toMatch(/\.\.\/\.\.\/evil/);
    expect(await refusal(zip([{ name: '/etc/evil', mode: 0o100644, data: 'x' }]))).toMatch(/^invalid charm archive: absolute path/);
  });

  it('refuses symlinks pointing outside the charm', async () => {
    expect(await refusal(zip([{ name: 'hooks/install', mode: 0o120777, data: '/etc/passwd' }]))).toBe(
      'invalid charm archive: symlink "hooks/install" leaves the charm',
    );
    expect(await refusal(zip([{ name: 'hooks/install', mode: 0o120777, data: '../../x' }]))).toBe(
      'invalid charm archive: symlink "hooks/install" leaves the charm',
    );
  });

  it('refuses anything beneath a symlink, which could lead out of the charm through a chain of links', async () => {
    // `d -> .` then `d/up -> ../escape`: each link looks inside the charm where it sits, but `up`
    // really lands at the root, pointing out of it.
    const chain = zip([
      { name: 'd', mode: 0o120777, data: '.' },
      { name: 'd/up', mode: 0o120777, data: '../escape' },
    ]);
    expect(await refusal(chain)).toBe('invalid charm archive: "d/up" lies beneath a symlink');
    const through = zip([
      { name: 'lib', mode: 0o120777, data: 'src' },
      { name: 'lib/x.py', mode: 0o100644, data: 'x' },
    ]);
    expect(await refusal(through)).toMatch(/"lib\/x.py" lies beneath a symlink/);
  });

  it('refuses a link that leads out through another link (`s1 -> .`, `up -> s1/..`), and a name given twice', async () => {
    const chain = zip([
      { name: 's1', mode: 0o120777, data: '.' },
      { name: 'up', mode: 0o120777, data: 's1/..' },
    ]);
    expect(await refusal(chain)).toBe('invalid charm archive: symlink "up" leaves the charm');
    const twice = zip([
      { name: 'x', mode: 0o120777, data: 'hooks' },
      { name: 'x', mode: 0o100644, data: 'y' },
    ]);
    expect(await refusal(twice)).toBe('invalid charm archive: "x" appears twice');
  });

  it('refuses special files', async () => {
    expect(await refusal(zip([{ name: 'fifo', mode: 0o010644 }]))).toBe(
      'invalid charm archive: "fifo" is a special file (device, fifo or socket), which a charm cannot hold',
    );
    expect(await refusal(zip([{ name: 'dev', mode: 0o020644 }]))).toMatch(/"dev" is a special file/);
  });

  it('refuses too many entries and too many uncompressed bytes (zip bombs)', async () => {
    const many = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, mode: 0o100644, data: 'x' }));
    expect(await refusal(zip(many), { entries: 10, bytes: 1 << 20 })).toBe(
      'invalid charm archive: holds more than 10 entries, the most a charm may hold',
    );
    const bomb = zip([{ name: 'bomb', mode: 0o100644, zeros: 2 * 1024 * 1024 }]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(await refusal(bomb, { entries: 10, bytes: 1024 * 1024 })).toBe(
      'invalid charm archive: expands to more than 1 MiB, the most a charm may hold',
    );
    // Many small entries add up too.
    const spread = zip(Array.from({ length: 4 }, (_, i) => ({ name: `z${i}`, mode: 0o100644, zeros: 400 * 1024 })));
    expect(await refusal(spread, { entries: 10, bytes: 1024 * 1024 })).toMatch(/expands to more than 1 MiB/);
  });
});
