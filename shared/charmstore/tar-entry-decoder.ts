// How a tar header becomes a charm archive entry (./charm-archive.ts): ustar names with prefixes,
// pax `path` and `linkpath` records and GNU long names, which apply to the entry after them; paths
// that would land outside the target directory (absolute, `..`) refused. One decoder for the
// reader that holds the whole tar in memory and for the one that streams it
// (./charm-archive-stream.ts), so both accept exactly the same archives.
import { archiveRefusal, charmEntryPath, unsupportedEntry } from './charm-archive-rules.js';

import type { Entry } from './archive-entry.js';

export type { Entry };

function field(h: Buffer, start: number, length: number): string {
  const raw = h.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
}

export function tarNumber(h: Buffer, start: number, length: number): number {
  const raw = h.subarray(start, start + length);
  // GNU base-256 for sizes of 8 GiB and more: not a charm.
  if ((raw[0]! & 0x80) !== 0) throw new Error('charm archive: entry too large');
  const text = raw.toString('ascii').replace(/\0.*$/s, '').trim();
  return text ? parseInt(text, 8) : 0;
}

function parsePax(data: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(32, offset);
    if (space === -1) break;
    const length = Number(data.subarray(offset, space).toString('ascii'));
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) records[record.slice(0, eq)] = record.slice(eq + 1);
    offset += length;
  }
  return records;
}

/** A header's size and type flag. */
export const headerSize = (h: Buffer) => tarNumber(h, 124, 12);
export const headerType = (h: Buffer) => String.fromCharCode(h[156]!);

/** Records that describe the next entry (pax, GNU long names) or nothing (pax global): their data is read whole. */
export const isMetadataType = (type: string) => type === 'x' || type === 'L' || type === 'K' || type === 'g';

export class TarEntryDecoder {
  private pax: Record<string, string> = {};
  private longName: string | undefined;
  private longLink: string | undefined;

  /** A metadata record's data (isMetadataType), for the entry that follows. */
  metadata(type: string, data: Buffer): void {
    if (type === 'x') this.pax = parsePax(data);
    else if (type === 'L') this.longName = data.toString('utf8').replace(/\0+$/, '');
    else if (type === 'K') this.longLink = data.toString('utf8').replace(/\0+$/, '');
  }

  /**
   * The entry a header describes, without its data; undefined for the root itself. What a charm has
   * no place for (hard links, devices, fifos, other tar types) is refused, as a zip's is
   * (./charm-archive-rules.ts).
   */
  entry(h: Buffer): Omit<Entry, 'data'> | undefined {
    const type = headerType(h);
    const prefix = field(h, 345, 155);
    const rawName = this.pax.path ?? this.longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    const linkTarget = this.pax.linkpath ?? this.longLink ?? field(h, 157, 100);
    this.pax = {};
    this.longName = this.longLink = undefined;
    const path = charmEntryPath(rawName);
    if (path === undefined) return undefined;
    const mode = tarNumber(h, 100, 8) & 0o777;
    if (type === '0' || type === '\0' || type === '7') return { path, type: 'file', mode };
    if (type === '5') return { path, type: 'dir', mode };
    if (type === '2') return { path, type: 'symlink', mode, linkTarget };
    if (type === '1') throw unsupportedEntry(rawName, 'a hard link');
    if (type === '3' || type === '4' || type === '6') throw unsupportedEntry(rawName, 'a special file (device, fifo or socket)');
    throw archiveRefusal(`"${rawName}" has tar entry type "${type}", which a charm cannot hold`);
  }
}
