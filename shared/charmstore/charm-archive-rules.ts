// The one set of rules a charm archive must meet, wherever it is judged: by the API on an inline or
// uploaded archive (functions/api/charm-upload.ts, uploaded-charm.ts), by the charm store as it turns
// a `.charm` zip into the tar.gz it keeps (./charm-zip.ts), by the CLI before it uploads
// (cli/charm-request.ts), and by the agent as it unpacks (./charm-unpack.ts). Judged alike, an
// archive the controller accepts is one every agent can install: before, `top/x -> ..` passed the
// upload check and failed on every unit, since agents strip a top directory the check did not.
//
// An archive comes from a user, so it is hostile until checked: nothing it holds may land outside
// the charm's directory, directly (an absolute path, `..`) or through a link (one that leads out,
// through the archive's other links too; an entry beneath a link; one path twice, the second
// written through the first), and it holds files, directories and symlinks only: a hard link,
// device, fifo or socket has no place in a charm.
import { posix } from 'node:path';
import { duplicateEntry, entryBeneathSymlink, unsafeLink } from './charm-archive-links.js';
import type { Entry } from './archive-entry.js';

/**
 * What one unit's charm may take, its files' bytes as unpacked: the bound every archive is held
 * to, tar or zip, inline or uploaded. Juju 3.6 sets no fixed bound of its own (its charm store and
 * agents take what storage allows: https://github.com/juju/docs/pull/1260); this one lets the API
 * function (512 MB) hold an inline `.charm`'s files and the tar made from them at once, and keeps
 * a gzip bomb from filling an agent's disk.
 */
export const MAX_CHARM_BYTES = 96 * 1024 * 1024;

/** The bounds every archive is checked against, as it is read (never after it is whole). */
export interface ArchiveBounds {
  /** Entries of every kind (files, directories, links): also what the entry list may hold in memory. */
  entries: number;
  /** Files' bytes, as unpacked (counted as they inflate, not trusted from headers). */
  bytes: number;
  /** An entry's path, in bytes (Linux's PATH_MAX is 4096). */
  pathBytes: number;
  /** Directories an entry's path goes down. */
  depth: number;
}

export const ARCHIVE_BOUNDS: ArchiveBounds = { entries: 20_000, bytes: MAX_CHARM_BYTES, pathBytes: 4096, depth: 64 };

/** Counts an archive against its bounds as it is read; each method throws the refusal of the bound crossed. */
export class ArchiveBudget {
  private entries = 0;
  private bytes = 0;
  readonly bounds: ArchiveBounds;

  constructor(bounds: Partial<ArchiveBounds> = {}) {
    this.bounds = { ...ARCHIVE_BOUNDS, ...bounds };
  }

  /** An entry, before anything of it is kept. */
  entry(path: string): void {
    if (++this.entries > this.bounds.entries) throw archiveRefusal(tooManyEntries(this.bounds.entries));
    if (Buffer.byteLength(path) > this.bounds.pathBytes)
      throw archiveRefusal(`path "${path.slice(0, 64)}…" is longer than ${this.bounds.pathBytes} bytes`);
    if (path.split('/').length - 1 > this.bounds.depth)
      throw archiveRefusal(`path "${path}" is more than ${this.bounds.depth} directories deep`);
  }

  /** A count of entries known before they are read (a zip's central directory). */
  declaredEntries(count: number): void {
    if (count > this.bounds.entries) throw archiveRefusal(tooManyEntries(this.bounds.entries));
  }

  /** File bytes as they are unpacked (or declared, before they are). */
  data(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.bounds.bytes) throw expandsTooMuch(this.bounds.bytes);
  }
}

/** The refusal of an archive whose files would take more than `max` bytes unpacked. */
export const expandsTooMuch = (max = MAX_CHARM_BYTES) =>
  archiveRefusal(`expands to more than ${max / 2 ** 20} MiB, the most a charm may hold`);

const tooManyEntries = (max: number) => `holds more than ${max} entries, the most a charm may hold`;

/** An entry as the rules see it: its data is never needed. */
export type ArchiveEntry = Omit<Entry, 'data'>;

/** Every refusal reads `charm archive: …`; the API says `invalid charm archive: …`. */
export const archiveRefusal = (message: string) => new Error(`charm archive: ${message}`);

/**
 * An entry's path as the archive names it, normalised (`./a//b/` is `a/b`); undefined for the root
 * itself. Refused: an absolute path (a drive letter too) or one that climbs with `..`.
 */
export function charmEntryPath(rawName: string): string | undefined {
  const path = posix.normalize(rawName.replace(/^(\.\/)+/, '')).replace(/\/+$/, '');
  if (path === '' || path === '.') return undefined;
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path) || path.split('/').includes('..')) throw archiveRefusal(`unsafe path "${rawName}"`);
  return path;
}

/** What a charm cannot hold, named for the refusal: `"x" is a hard link, which a charm cannot hold`. */
export function unsupportedEntry(rawName: string, what: string): Error {
  return archiveRefusal(`"${rawName}" is ${what}, which a charm cannot hold`);
}

/**
 * The directory a charm packed with its directory as the top level (`mysql/metadata.yaml`) has on
 * top, so it is unpacked as if packed from inside it; undefined for a charm packed from inside.
 */
export function topDirectory(entries: readonly ArchiveEntry[]): string | undefined {
  const tops = new Set(entries.map((e) => e.path.split('/')[0]));
  const [top] = tops;
  const packedWithTop =
    tops.size === 1 &&
    top !== undefined &&
    !entries.some((e) => e.path === 'metadata.yaml') &&
    entries.some((e) => e.path === `${top}/metadata.yaml`);
  return packedWithTop ? top : undefined;
}

/** An entry's path within the charm (undefined: the top directory itself, which is not written). */
export const withinCharm = (path: string, top: string | undefined) =>
  top === undefined ? path : path === top ? undefined : path.slice(top.length + 1);

/**
 * The entries as they land in the charm's directory (a top directory stripped), once the rules
 * that involve several entries hold; throws the first that does not.
 */
export function charmEntries<E extends ArchiveEntry>(entries: readonly E[]): { top: string | undefined; entries: E[] } {
  const top = topDirectory(entries);
  const inCharm = entries.flatMap((e) => {
    const path = withinCharm(e.path, top);
    return path === undefined ? [] : [{ ...e, path }];
  });
  const beneath = entryBeneathSymlink(inCharm);
  if (beneath) throw archiveRefusal(`"${beneath.path}" lies beneath a symlink`);
  const twice = duplicateEntry(inCharm);
  if (twice) throw archiveRefusal(`"${twice.path}" appears twice`);
  const out = unsafeLink(inCharm);
  if (out) throw archiveRefusal(`symlink "${out.path}" leaves the charm`);
  return { top, entries: inCharm };
}
