// Agents unpack a downloaded charm from its file, streaming (shared/charmstore/charm-unpack.ts):
// the same directory as from memory, with every byte and mode, and nothing at all written for an
// archive that could write outside it.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packEntries } from '#shared/charmstore/charm-archive.js';
import { unpackCharmArchive, unpackCharmArchiveFile } from '#shared/charmstore/charm-unpack.js';

// Compared by digest: vitest's deep equality walks a 5 MB buffer byte by byte for seconds.
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const temp = () => mkdtempSync(join(tmpdir(), 'charm-unpack-'));

function archiveFile(bytes: Buffer): string {
  const path = join(temp(), 'charm.tar.gz');
  writeFileSync(path, bytes);
  return path;
}

describe('unpacking a charm archive from its file', () => {
  it('writes every file whole, with its mode, its directories and links, as from memory', async () => {
    const blob = randomBytes(5 * 2 ** 20 + 123);
    const archive = packEntries([
      { path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from('name: x\n') },
      { path: 'hooks', type: 'dir', mode: 0o755 },
      { path: 'hooks/install', type: 'file', mode: 0o755, data: Buffer.from('#!/bin/sh\n') },
      { path: 'empty', type: 'file', mode: 0o600, data: Buffer.alloc(0) },
      { path: 'blob', type: 'file', mode: 0o640, data: blob },
      { path: 'start', type: 'symlink', mode: 0o777, linkTarget: 'hooks/install' },
    ]);
    const fromFile = temp();
    await unpackCharmArchiveFile(archiveFile(archive), fromFile);
    expect(sha256(readFileSync(join(fromFile, 'blob')))).toBe(sha256(blob));
    expect(statSync(join(fromFile, 'blob')).mode & 0o777).toBe(0o640);
    expect(statSync(join(fromFile, 'hooks', 'install')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(fromFile, 'empty'))).toEqual(Buffer.alloc(0));
    expect(readlinkSync(join(fromFile, 'start'))).toBe('hooks/install');
    const fromMemory = temp();
    await unpackCharmArchive(archive, fromMemory);
    expect(readdirSync(fromFile, { recursive: true }).sort()).toEqual(readdirSync(fromMemory, { recursive: true }).sort());
  });

  it('unpacks a charm packed with its directory on top as if packed from inside it', async () => {
    const out = temp();
    await unpackCharmArchiveFile(
      archiveFile(
        packEntries([
          { path: 'mysql', type: 'dir', mode: 0o755 },
          { path: 'mysql/metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from('name: mysql\n') },
        ]),
      ),
      out,
    );
    expect(readdirSync(out)).toEqual(['metadata.yaml']);
  });

  it('writes nothing of an archive with a link out of the charm, or a file beneath a link', async () => {
    const linkOut = packEntries([
      { path: 'a', type: 'file', mode: 0o644, data: Buffer.from('a') },
      { path: 'up', type: 'symlink', mode: 0o777, linkTarget: '../../x' },
    ]);
    const out = join(temp(), 'charm');
    await expect(unpackCharmArchiveFile(archiveFile(linkOut), out)).rejects.toThrow('charm archive: symlink "up" leaves the charm');
    const beneath = packEntries([
      { path: 'd', type: 'symlink', mode: 0o777, linkTarget: '.' },
      { path: 'd/x', type: 'file', mode: 0o644, data: Buffer.from('x') },
    ]);
    await expect(unpackCharmArchiveFile(archiveFile(beneath), out)).rejects.toThrow('charm archive: "d/x" lies beneath a symlink');
    expect(existsSync(out)).toBe(false);
  });
});
