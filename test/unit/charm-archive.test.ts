import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_CHARM_BYTES, packCharmDir, packEntries, readCharmArchive } from '#shared/charmstore/charm-archive.js';
import { unsafeLink } from '#shared/charmstore/charm-archive-links.js';
import { unpackCharmArchive } from '#shared/charmstore/charm-unpack.js';

const temp = () => mkdtempSync(join(tmpdir(), 'charm-archive-'));

function charmDir(): string {
  const dir = temp();
  mkdirSync(join(dir, 'hooks'));
  writeFileSync(join(dir, 'metadata.yaml'), 'name: x\n');
  writeFileSync(join(dir, 'hooks', 'install'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  const deep = join(dir, 'lib', 'a'.repeat(60), 'b'.repeat(60));
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(deep, 'long-name.txt'), 'long');
  return dir;
}

describe('charm archives', () => {
  it('refuses a gzip bomb while inflating it, never holding it whole', () => {
    // Zeros compress about a thousandfold: ~130 KB of gzip that would inflate past the bound.
    const bomb = gzipSync(Buffer.alloc(MAX_CHARM_BYTES + 33 * 2 ** 20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(() => readCharmArchive(bomb)).toThrow('charm archive: expands to more than 96 MiB, the most a charm may hold');
  });

  it('round-trips files, directories, long names and executable bits', async () => {
    const out = temp();
    await unpackCharmArchive(await packCharmDir(charmDir()), out);
    expect(readFileSync(join(out, 'metadata.yaml'), 'utf8')).toBe('name: x\n');
    expect(statSync(join(out, 'hooks', 'install')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(out, 'lib', 'a'.repeat(60), 'b'.repeat(60), 'long-name.txt'), 'utf8')).toBe('long');
  });

  it("makes the hooks metadata.yaml declares executable, as Juju's agent expands a charm; nothing else", async () => {
    const src = temp();
    mkdirSync(join(src, 'hooks'));
    writeFileSync(join(src, 'metadata.yaml'), 'name: x\nrequires:\n  db: mysql\npeers:\n  ring: x\nstorage:\n  data: {type: filesystem}\n');
    const hooks = [
      'install',
      'remove',
      'db-relation-joined',
      'ring-relation-broken',
      'data-storage-attached',
      'helper.sh',
      'website-relation-joined',
    ];
    for (const name of hooks) writeFileSync(join(src, 'hooks', name), '#!/bin/sh\n', { mode: 0o644 });
    writeFileSync(join(src, 'dispatch'), '#!/bin/sh\n', { mode: 0o644 });
    const out = temp();
    await unpackCharmArchive(await packCharmDir(src), out);
    const mode = (path: string) => statSync(join(out, path)).mode & 0o777;
    for (const name of ['install', 'remove', 'db-relation-joined', 'ring-relation-broken', 'data-storage-attached']) {
      expect(mode(`hooks/${name}`), name).toBe(0o744);
    }
    // Not a hook this charm declares (no website endpoint), not a hook at all, not under hooks/.
    expect(mode('hooks/website-relation-joined')).toBe(0o644);
    expect(mode('hooks/helper.sh')).toBe(0o644);
    expect(mode('dispatch')).toBe(0o644);
  });

  it('reads what the tar tool writes, and unpacks a charm packed with its directory on top', async () => {
    const src = charmDir();
    const parent = join(src, '..');
    const name = src.split('/').pop()!;
    const archive = execFileSync('tar', ['-czf', '-', '-C', parent, name]);
    const out = temp();
    await unpackCharmArchive(archive, out);
    expect(readFileSync(join(out, 'metadata.yaml'), 'utf8')).toBe('name: x\n');
    expect(statSync(join(out, 'hooks', 'install')).mode & 0o111).not.toBe(0);
  });

  it('refuses entries that would land outside the charm directory', async () => {
    const header = Buffer.alloc(512);
    header.write('../evil', 0);
    header.write('0000644\0', 100);
    header.write('00000000000\0', 124);
    header.write('0', 156);
    header.write('ustar\0', 257);
    header.write('        ', 148);
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const archive = gzipSync(Buffer.concat([header, Buffer.alloc(1024)]));
    expect(() => readCharmArchive(archive)).toThrow('charm archive: unsafe path "../evil"');
  });

  it('refuses a symlink that points out of the charm', async () => {
    const src = temp();
    writeFileSync(join(src, 'metadata.yaml'), 'name: x\n');
    execFileSync('ln', ['-s', '/etc', join(src, 'hooks')]);
    expect(readlinkSync(join(src, 'hooks'))).toBe('/etc');
    await expect(unpackCharmArchive(await packCharmDir(src), temp())).rejects.toThrow('leaves the charm');
  });

  it('refuses entries beneath a symlink, which a chain of in-charm links could lead outside', async () => {
    const archive = packEntries([
      { path: 'd', type: 'symlink', mode: 0o777, linkTarget: '.' },
      { path: 'd/up', type: 'symlink', mode: 0o777, linkTarget: '../escape' },
    ]);
    const out = temp();
    await expect(unpackCharmArchive(archive, out)).rejects.toThrow('charm archive: "d/up" lies beneath a symlink');
    expect(readdirSync(out)).toEqual([]);
  });

  // Found by the fuzzer (test/fuzz/charm-archive.fuzz.test.ts): `s1 -> .` makes `s1/../X` really
  // `../X`, though its text normalises to `X`; a file entry named like that link was then written
  // through it, one level above the charm (and `s1/s1/../../X` two levels, and so on).
  it("follows links through the archive's other links: `s1 -> .` then `up -> s1/../X` leads out, and nothing is written through it", async () => {
    const entries = [
      { path: 's1', type: 'symlink' as const, mode: 0o777, linkTarget: '.' },
      { path: 'up', type: 'symlink' as const, mode: 0o777, linkTarget: 's1/../X' },
      { path: 'up', type: 'file' as const, mode: 0o644, data: Buffer.from('written outside') },
    ];
    expect(unsafeLink(entries)?.path).toBe('up');
    const parent = temp();
    const out = join(parent, 'charm');
    await expect(unpackCharmArchive(packEntries(entries), out)).rejects.toThrow('charm archive: "up" appears twice');
    await expect(unpackCharmArchive(packEntries(entries.slice(0, 2)), out)).rejects.toThrow('charm archive: symlink "up" leaves the charm');
    expect(readdirSync(parent)).toEqual([]);
    // Links that stay inside through other links are kept.
    expect(unsafeLink([entries[0]!, { path: 'in', type: 'symlink', mode: 0o777, linkTarget: 's1/hooks/../s1' }])).toBeUndefined();
    // A loop leads nowhere, so it is refused too.
    expect(
      unsafeLink([
        { path: 'a', type: 'symlink', mode: 0o777, linkTarget: 'b/x' },
        { path: 'b', type: 'symlink', mode: 0o777, linkTarget: 'a/y' },
      ])?.path,
    ).toBe('a');
  });
});
