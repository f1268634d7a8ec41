// A charm archive written out as a charm directory, as agents install it. Streamed twice: once to
// list its entries and refuse anything that could write outside the directory (the rules of
// ./charm-archive-rules.ts, the controller's too), once to write them, each file's data as it comes; so an archive of any size
// (up to the bound of ./charm-archive-stream.ts) is unpacked without being held in memory. Then
// the hooks metadata.yaml declares are made executable, as Juju's agent does (./hook-modes.ts).
import { createReadStream } from 'node:fs';
import { chmod, mkdir, open, symlink, type FileHandle } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { charmEntries, withinCharm, type ArchiveEntry } from './charm-archive-rules.js';
import { readCharmArchiveStream, type TarVisitor } from './charm-archive-stream.js';
import { makeDeclaredHooksExecutable } from './hook-modes.js';

type Source = () => AsyncIterable<Uint8Array>;

/** Writes each entry as the second pass reaches it, checked against the first pass's list. */
function writer(root: string, top: string | undefined, expected: ArchiveEntry[]): TarVisitor & { abandon(): Promise<void> } {
  let next = 0;
  let file: { handle: FileHandle; target: string; mode: number } | undefined;
  return {
    async entry(raw) {
      const path = withinCharm(raw.path, top);
      if (path === undefined) return;
      const entry = { ...raw, path };
      if (expected[next++]?.path !== path) throw new Error('charm archive: changed while it was unpacked');
      const target = resolve(root, ...path.split('/'));
      if (!target.startsWith(root + sep)) throw new Error(`charm archive: unsafe path "${path}"`);
      if (entry.type === 'dir') {
        await mkdir(target, { recursive: true });
        await chmod(target, entry.mode | 0o700);
      } else if (entry.type === 'file') {
        await mkdir(dirname(target), { recursive: true });
        // `wx`: O_CREAT|O_EXCL, which never follows a link already there (belt and braces with
        // the checks above: whatever is at this path, the file is not written through it).
        file = { handle: await open(target, 'wx', entry.mode), target, mode: entry.mode };
      } else {
        // A link out of the charm would let a later entry write through it.
        const pointsTo = resolve(dirname(target), entry.linkTarget ?? '');
        if (pointsTo !== root && !pointsTo.startsWith(root + sep)) throw new Error(`charm archive: symlink "${path}" leaves the charm`);
        await mkdir(dirname(target), { recursive: true });
        await symlink(entry.linkTarget ?? '', target);
      }
    },
    async data(chunk) {
      if (file) await file.handle.write(chunk);
    },
    async end() {
      if (!file) return;
      const { handle, target, mode } = file;
      file = undefined;
      await handle.close();
      await chmod(target, mode);
    },
    async abandon() {
      await file?.handle.close().catch(() => undefined);
      file = undefined;
    },
  };
}

async function unpack(source: Source, dest: string): Promise<void> {
  const { entries } = await readCharmArchiveStream(source());
  const { top, entries: expected } = charmEntries(entries);
  const root = resolve(dest);
  await mkdir(root, { recursive: true });
  const visitor = writer(root, top, expected);
  try {
    await readCharmArchiveStream(source(), { visitor });
  } finally {
    await visitor.abandon();
  }
  await makeDeclaredHooksExecutable(root);
}

/** Writes an archive held in memory (an inline upload, a test's) under `dest`, within the same bounds. */
export function unpackCharmArchive(archive: Buffer, dest: string): Promise<void> {
  return unpack(async function* () {
    yield archive;
  }, dest);
}

/** Writes the archive at `path` under `dest`, streaming it: how agents install a downloaded charm. */
export function unpackCharmArchiveFile(path: string, dest: string): Promise<void> {
  return unpack(() => createReadStream(path), dest);
}
