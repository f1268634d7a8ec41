// The streaming charm archive reader (shared/charmstore/charm-archive-stream.ts) sees exactly the
// entries the in-memory reader does, whatever sizes the bytes arrive in, and refuses the same
// archives, with memory that does not grow with the files' data.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packCharmDir, packEntries, readCharmArchive, type Entry } from '#shared/charmstore/charm-archive.js';
import { readCharmArchiveStream } from '#shared/charmstore/charm-archive-stream.js';
import { tarHeader } from '#shared/charmstore/tar-blocks.js';

const temp = () => mkdtempSync(join(tmpdir(), 'charm-archive-stream-'));

/** The bytes, `size` at a time. */
async function* inPieces(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const withoutData = (entries: Entry[]) => entries.map(({ data: _data, ...rest }) => rest);

function charmDir(): string {
  const dir = temp();
  mkdirSync(join(dir, 'hooks'));
  writeFileSync(join(dir, 'metadata.yaml'), 'name: x\n');
  writeFileSync(join(dir, 'hooks', 'install'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  writeFileSync(join(dir, 'blob'), randomBytes(64 * 1024 + 7));
  const deep = join(dir, 'lib', 'a'.repeat(60), 'b'.repeat(60));
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(deep, 'long-name.txt'), 'long');
  execFileSync('ln', ['-s', 'hooks/install', join(dir, 'link')]);
  return dir;
}

describe('the streaming charm archive reader', () => {
  it('reads the entries the in-memory reader reads, and the sha256 of the bytes, in pieces of any size', async () => {
    const archive = await packCharmDir(charmDir());
    const expected = withoutData(readCharmArchive(archive));
    expect(expected.map((e) => e.path)).toContain(`lib/${'a'.repeat(60)}/${'b'.repeat(60)}/long-name.txt`);
    for (const piece of [1, 511, 512, 513, 65_536, archive.length]) {
      const streamed = await readCharmArchiveStream(inPieces(archive, piece));
      expect(streamed.entries).toEqual(expected);
      expect(streamed.sha256).toBe(createHash('sha256').update(archive).digest('hex'));
      expect(streamed.bytes).toBe(archive.length);
    }
  });

  it('reads what the tar tool writes (ustar prefixes, GNU long names)', async () => {
    const src = charmDir();
    const archive = execFileSync('tar', ['-czf', '-', '-C', src, '.'], { maxBuffer: 2 ** 24 });
    expect((await readCharmArchiveStream(inPieces(archive, 1000))).entries).toEqual(withoutData(readCharmArchive(archive)));
  });

  it('refuses an entry that would land outside the charm', async () => {
    const archive = gzipSync(Buffer.concat([tarHeader('../evil', '0', 0o644, 0), Buffer.alloc(1024)]));
    await expect(readCharmArchiveStream(inPieces(archive, 100))).rejects.toThrow('charm archive: unsafe path "../evil"');
  });

  it('refuses a truncated archive and bytes that are not gzip', async () => {
    const whole = gzipSync(Buffer.concat([tarHeader('big', '0', 0o644, 10_000), Buffer.alloc(2000)]));
    await expect(readCharmArchiveStream(inPieces(whole, 100))).rejects.toThrow('charm archive: truncated');
    await expect(readCharmArchiveStream(inPieces(Buffer.from('PK\x03\x04 a zip'), 100))).rejects.toThrow(/incorrect header check/);
  });

  it('refuses a gzip bomb while inflating it', async () => {
    const bomb = gzipSync(Buffer.concat([tarHeader('zeros', '0', 0o644, 8 * 2 ** 20), Buffer.alloc(8 * 2 ** 20)]));
    await expect(readCharmArchiveStream(inPieces(bomb, 4096), { maxTarBytes: 2 ** 20 })).rejects.toThrow(
      'charm archive: expands to more than 1 MiB, the most a charm may hold',
    );
  });

  it('hands back hostile entries for the checks the in-memory path applies', async () => {
    const archive = packEntries([
      { path: 'up', type: 'symlink', mode: 0o777, linkTarget: '../outside' },
      { path: 'a', type: 'file', mode: 0o644, data: Buffer.from('1') },
      { path: 'a', type: 'file', mode: 0o644, data: Buffer.from('2') },
    ]);
    expect((await readCharmArchiveStream(inPieces(archive, 7))).entries).toEqual([
      { path: 'up', type: 'symlink', mode: 0o777, linkTarget: '../outside' },
      { path: 'a', type: 'file', mode: 0o644 },
      { path: 'a', type: 'file', mode: 0o644 },
    ]);
  });
});
