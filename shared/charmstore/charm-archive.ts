// A charm directory as a tar.gz, the form `deploy` uploads and agents download (docs/architecture.md,
// "Charms": a directory with metadata.yaml, config.yaml and executable hooks/<name>). A small ustar
// reader and writer on node:zlib: hooks must keep their executable bits, and neither the
// controller nor an agent should depend on a `tar` binary.
//
// The reader takes what common tar tools write: ustar names with prefixes, pax `path` and
// `linkpath` records, and GNU long names. It refuses entries that would land outside the target
// directory (absolute paths, `..`), since the archive comes from a user.
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { paxRecord, TAR_BLOCK, tarHeader, tarPadding } from './tar-blocks.js';
import { headerSize, headerType, isMetadataType, TarEntryDecoder, type Entry } from './tar-entry-decoder.js';
import { ARCHIVE_BOUNDS, ArchiveBudget, expandsTooMuch, MAX_CHARM_BYTES } from './charm-archive-rules.js';

/** The tar that holds a charm's files: their bytes plus a header and padding per entry (and a pax record at most). */
export const MAX_CHARM_TAR_BYTES = MAX_CHARM_BYTES + ARCHIVE_BOUNDS.entries * 3 * TAR_BLOCK + 2 ** 20;

export { MAX_CHARM_BYTES };

export type { Entry } from './tar-entry-decoder.js';

// ---- writing ------------------------------------------------------------------------------

function entryBlocks(entry: Entry): Buffer[] {
  const blocks: Buffer[] = [];
  const name = entry.type === 'dir' ? `${entry.path}/` : entry.path;
  const longName = Buffer.byteLength(name) > 100;
  const longLink = entry.linkTarget !== undefined && Buffer.byteLength(entry.linkTarget) > 100;
  if (longName || longLink) {
    const pax = Buffer.from((longName ? paxRecord('path', name) : '') + (longLink ? paxRecord('linkpath', entry.linkTarget!) : ''), 'utf8');
    blocks.push(tarHeader('PaxHeader', 'x', 0o644, pax.length), pax, tarPadding(pax.length));
  }
  const shortName = longName ? name.slice(-99) : name;
  const size = entry.type === 'file' ? (entry.data?.length ?? 0) : 0;
  const type = entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2';
  blocks.push(tarHeader(shortName, type, entry.mode, size, longLink ? '' : (entry.linkTarget ?? '')));
  if (entry.type === 'file' && entry.data) blocks.push(entry.data, tarPadding(entry.data.length));
  return blocks;
}

async function walk(root: string, relative: string, entries: Entry[]): Promise<void> {
  const names = (await readdir(join(root, relative))).sort();
  for (const name of names) {
    const path = relative ? `${relative}/${name}` : name;
    const full = join(root, path);
    const stat = await lstat(full);
    if (stat.isSymbolicLink()) entries.push({ path, type: 'symlink', mode: 0o777, linkTarget: await readlink(full) });
    else if (stat.isDirectory()) {
      entries.push({ path, type: 'dir', mode: stat.mode & 0o777 });
      await walk(root, path, entries);
    } else if (stat.isFile()) entries.push({ path, type: 'file', mode: stat.mode & 0o777, data: await readFile(full) });
  }
}

/** Entries as a tar.gz: the one form the charm store keeps, whatever the user uploaded. */
export function packEntries(entries: Entry[]): Buffer {
  return gzipSync(Buffer.concat([...entries.flatMap(entryBlocks), Buffer.alloc(TAR_BLOCK * 2)]));
}

/** The directory's files, directories and symlinks, with their modes, as a tar.gz. */
export async function packCharmDir(dir: string): Promise<Buffer> {
  const entries: Entry[] = [];
  await walk(dir, '', entries);
  return packEntries(entries);
}

// ---- reading ------------------------------------------------------------------------------

/** The entries of a tar.gz; throws on anything that is not a well-formed archive. */
export function readCharmArchive(archive: Buffer): Entry[] {
  let tar: Buffer;
  try {
    // Bounded as it inflates: a 1 MB gzip of zeros would otherwise become a 1 GiB buffer.
    tar = gunzipSync(archive, { maxOutputLength: MAX_CHARM_TAR_BYTES });
  } catch (e) {
    // Its tar alone is past what the files may take: the files are.
    if (e instanceof RangeError) throw expandsTooMuch();
    throw e;
  }
  const entries: Entry[] = [];
  const decoder = new TarEntryDecoder();
  const budget = new ArchiveBudget();
  let offset = 0;
  while (offset + TAR_BLOCK <= tar.length) {
    const h = tar.subarray(offset, offset + TAR_BLOCK);
    if (h.every((b) => b === 0)) break;
    const size = headerSize(h);
    const type = headerType(h);
    const data = tar.subarray(offset + TAR_BLOCK, offset + TAR_BLOCK + size);
    if (data.length < size) throw new Error('charm archive: truncated');
    offset += TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    if (isMetadataType(type)) {
      decoder.metadata(type, data);
      continue;
    }
    const entry = decoder.entry(h);
    if (!entry) continue;
    budget.entry(entry.path);
    if (entry.type === 'file') budget.data(size);
    entries.push(entry.type === 'file' ? { ...entry, data: Buffer.from(data) } : entry);
  }
  return entries;
}
