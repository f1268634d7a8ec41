// Every archive is held to the same bounds (shared/charmstore/charm-archive-rules.ts, ARCHIVE_BOUNDS):
// entries, unpacked bytes, path length and depth, for a tar.gz read whole (inline) or streamed
// (uploaded, unpacked by agents) and for a .charm zip; a bound is refused as it is crossed, so
// memory does not grow with a hostile archive and a bomb never reaches a unit.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packEntries, readCharmArchive, type Entry } from '#shared/charmstore/charm-archive.js';
import { ARCHIVE_BOUNDS, MAX_CHARM_BYTES } from '#shared/charmstore/charm-archive-rules.js';
import { readCharmArchiveStream } from '#shared/charmstore/charm-archive-stream.js';
import { unpackCharmArchive } from '#shared/charmstore/charm-unpack.js';
import { readCharmZip } from '#shared/charmstore/charm-zip.js';
import { TAR_BLOCK, tarHeader } from '#shared/charmstore/tar-blocks.js';

const MiB = 2 ** 20;
const file = (path: string, data: Buffer = Buffer.alloc(0)): Entry => ({ path, type: 'file', mode: 0o644, data });

/** A zip built with Python's zipfile: `zeros` bytes of zeros, or empty. */
function zip(files: { name: string; zeros?: number }[]): Buffer {
  const script = `
import json, sys, zipfile, io
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
    for e in json.load(sys.stdin):
        z.writestr(e['name'], b'\\0' * e.get('zeros', 0))
sys.stdout.buffer.write(buf.getvalue())
`;
  return execFileSync('python3', ['-c', script], { input: JSON.stringify(files), maxBuffer: 64 * MiB });
}

const bounds: [string, Entry[], string][] = [
  [
    'more entries than the bound',
    Array.from({ length: ARCHIVE_BOUNDS.entries + 1 }, (_, i) => file(`f${i}`)),
    `holds more than ${ARCHIVE_BOUNDS.entries} entries, the most a charm may hold`,
  ],
  ['more bytes than the bound', [file('big', Buffer.alloc(MAX_CHARM_BYTES + 1))], `expands to more than ${MAX_CHARM_BYTES / MiB} MiB`],
  ['a path longer than the bound', [file('a'.repeat(ARCHIVE_BOUNDS.pathBytes + 1))], `is longer than ${ARCHIVE_BOUNDS.pathBytes} bytes`],
  ['a path deeper than the bound', [file(`${'d/'.repeat(ARCHIVE_BOUNDS.depth + 1)}f`)], `directories deep`],
];

const readers: { name: string; read: (entries: Entry[]) => Promise<unknown> }[] = [
  { name: 'a tar.gz read whole (inline)', read: async (entries) => readCharmArchive(packEntries(entries)) },
  {
    name: 'a tar.gz streamed (uploaded)',
    read: (entries) =>
      readCharmArchiveStream(
        (async function* () {
          yield packEntries(entries);
        })(),
      ),
  },
  {
    name: 'a .charm zip',
    read: (entries) => readCharmZip(zip(entries.map((e) => ({ name: e.path, zeros: e.data?.length ?? 0 })))),
  },
];

describe.each(readers)('$name', ({ read }) => {
  it.each(bounds)('refuses %s', async (_what, entries, refusal) => {
    await expect(read(entries)).rejects.toThrow(refusal);
  });
});

/** Tar headers of empty files, gzipped as they are asked for: millions of entries without holding them. */
async function* emptyHeaders(count: number): AsyncGenerator<Uint8Array> {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const batch = 1000;
  for (let i = 0; i < count; i += batch) {
    const blocks = Array.from({ length: batch }, (_, k) => tarHeader(`e${i + k}`, '0', 0o644, 0));
    await new Promise<void>((resolve) => gzip.write(Buffer.concat(blocks), () => resolve()));
    await new Promise<void>((resolve) => gzip.flush(() => resolve()));
    while (out.length > 0) yield out.shift()!;
  }
  gzip.end(Buffer.alloc(TAR_BLOCK * 2));
}

it('streams 8 million empty headers into a refusal at the entry bound, the heap growing by a few megabytes at most', async () => {
  global.gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed);
    peakRss = Math.max(peakRss, now.rss);
  }, 5);
  let headersRead = 0;
  const counted = async function* () {
    for await (const chunk of emptyHeaders(8_000_000)) {
      headersRead += chunk.length;
      yield chunk;
    }
  };
  try {
    await expect(readCharmArchiveStream(counted())).rejects.toThrow(`holds more than ${ARCHIVE_BOUNDS.entries} entries`);
  } finally {
    clearInterval(sampler);
  }
  // Refused at the bound: what was read is a tiny part of the archive.
  expect(headersRead).toBeLessThan(2 * MiB);
  expect(peakHeap - before.heapUsed).toBeLessThan(64 * MiB);
  expect(peakRss - before.rss).toBeLessThan(128 * MiB);
});

it('a 1 MB archive that would inflate to 1 GiB is refused within about a second, before anything is written', async () => {
  // One gzip member of a 64 MiB file of zeros, sixteen times over (gzip members concatenate): each
  // header tells its size, so the bound is crossed at the second.
  const member = gzipSync(Buffer.concat([tarHeader('zeros', '0', 0o644, 64 * MiB), Buffer.alloc(64 * MiB)]), { level: 1 });
  const bomb = Buffer.concat([...Array.from({ length: 16 }, () => member), gzipSync(Buffer.alloc(TAR_BLOCK * 2))]);
  expect(bomb.length).toBeLessThan(5 * MiB);
  const started = performance.now();
  await expect(
    readCharmArchiveStream(
      (async function* () {
        yield bomb;
      })(),
    ),
  ).rejects.toThrow(`expands to more than ${MAX_CHARM_BYTES / MiB} MiB`);
  expect(performance.now() - started).toBeLessThan(1500);
  const root = mkdtempSync(join(tmpdir(), 'bounds-'));
  await expect(unpackCharmArchive(bomb, join(root, 'charm'))).rejects.toThrow('expands to more than');
  expect(readdirSync(root)).toEqual([]);
});
