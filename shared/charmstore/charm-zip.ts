// A charm packed by charmcraft: a `.charm` file, which is a zip (https://juju.is/docs/sdk/charm-file
// ; charmcraft's packing: https://github.com/canonical/charmcraft). drover keeps charms as tar.gz
// (charm-archive.ts), so a zip is read here, checked, and converted; agents never see a zip.
//
// The archive comes from a user, so everything in it is hostile until checked, and a refused
// archive changes nothing (nothing is written to disk here): no path may leave the charm's root,
// no symlink may point out of it, no device, fifo or socket is accepted, and the entries and the
// bytes they expand to are bounded (a zip bomb of a few kilobytes can expand to gigabytes).
import type { Readable } from 'node:stream';
import yauzl, { type Entry as ZipEntry, type ZipFile } from 'yauzl';
import { errorMessage, invalidArgument } from '../domain/errors.js';
import { packEntries, type Entry } from './charm-archive.js';
import {
  ArchiveBudget,
  charmEntries,
  expandsTooMuch,
  charmEntryPath,
  unsupportedEntry,
  type ArchiveBounds,
} from './charm-archive-rules.js';

/** The bounds of every archive (./charm-archive-rules.ts); a test may lower them. */
export type ZipLimits = Partial<ArchiveBounds>;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EMPTY_ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/** A zip starts with a local file header (or, empty, with the end-of-central-directory record). */
export const isZip = (bytes: Buffer) => bytes.subarray(0, 4).equals(ZIP_MAGIC) || bytes.subarray(0, 4).equals(EMPTY_ZIP_MAGIC);

const refuse = (message: string) => invalidArgument(`invalid charm archive: ${message}`);

// The file type in the Unix mode zip keeps in the top 16 bits of the external attributes.
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** `version made by` high byte: 3 is Unix, the only system whose attributes carry a mode. */
const MADE_BY_UNIX = 3;

function open(bytes: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // validateEntrySizes: yauzl fails a stream whose bytes differ from the declared size, so a
    // lying header cannot slip past the byte bound.
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true }, (err, zip) =>
      err ? reject(refuse(`not a zip file (${err.message})`)) : resolve(zip),
    );
  });
}

function readStream(zip: ZipFile, entry: ZipEntry, budget: ArchiveBudget): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream: Readable) => {
      if (err) return reject(refuse(`cannot read "${entry.fileName}": ${err.message}`));
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        // Counted as the bytes arrive, not trusted from the header.
        try {
          budget.data(chunk.length);
        } catch (e) {
          stream.destroy();
          reject(refused(e));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (e: Error) => reject(refuse(`cannot read "${entry.fileName}": ${e.message}`)));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

/** A rule's refusal (charm-archive-rules.ts) in the API's words. */
const refused = (e: unknown) => refuse(errorMessage(e).replace(/^charm archive: /, ''));

function kind(entry: ZipEntry): { type: Entry['type']; mode: number } {
  const isDirName = entry.fileName.endsWith('/');
  if (entry.versionMadeBy >> 8 !== MADE_BY_UNIX) return isDirName ? { type: 'dir', mode: 0o755 } : { type: 'file', mode: 0o644 };
  const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
  const perm = unixMode & 0o777;
  switch (unixMode & S_IFMT) {
    case S_IFLNK:
      return { type: 'symlink', mode: 0o777 };
    case S_IFDIR:
      return { type: 'dir', mode: perm || 0o755 };
    case S_IFREG:
      return { type: isDirName ? 'dir' : 'file', mode: perm };
    case 0:
      // A Unix zip tool that recorded no type: the name says which.
      return isDirName ? { type: 'dir', mode: perm || 0o755 } : { type: 'file', mode: perm || 0o644 };
    default:
      throw refused(unsupportedEntry(entry.fileName, 'a special file (device, fifo or socket)'));
  }
}

/** The zip's entries, checked; throws a clear `invalid charm archive: …` on anything hostile. */
export async function readCharmZip(bytes: Buffer, limits: ZipLimits = {}): Promise<Entry[]> {
  if (!isZip(bytes)) throw refuse('not a zip file (a .charm is a zip, as charmcraft packs it)');
  const zip = await open(bytes);
  const budget = new ArchiveBudget(limits);
  try {
    budget.declaredEntries(zip.entryCount);
  } catch (e) {
    zip.close();
    throw refused(e);
  }
  const entries: Entry[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: unknown) => reject(e);
      zip.on('error', (e: Error) => reject(refuse(e.message)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: ZipEntry) => {
        (async () => {
          let path: string | undefined;
          try {
            path = charmEntryPath(entry.fileName);
            if (path !== undefined) budget.entry(path);
          } catch (e) {
            throw refused(e);
          }
          const { type, mode } = kind(entry);
          // The declared size is checked first so a bomb is refused before any inflating.
          if (entry.uncompressedSize > budget.bounds.bytes) throw refused(expandsTooMuch(budget.bounds.bytes));
          if (path === undefined) return;
          if (type === 'dir') entries.push({ path, type, mode });
          else {
            const data = await readStream(zip, entry, budget);
            if (type === 'symlink') {
              const linkTarget = data.toString('utf8');
              entries.push({ path, type, mode, linkTarget });
            } else entries.push({ path, type, mode, data });
          }
        })().then(() => zip.readEntry(), fail);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  // Judged as agents will unpack the tar it becomes (a top directory stripped first).
  try {
    charmEntries(entries);
  } catch (e) {
    throw refused(e);
  }
  return entries;
}

/** A `.charm` as the tar.gz the charm store keeps (executable bits and in-charm symlinks kept). */
export async function charmZipToArchive(bytes: Buffer, limits: ZipLimits = {}): Promise<Buffer> {
  return packEntries(await readCharmZip(bytes, limits));
}

/** A text file at the charm's root (metadata.yaml, config.yaml, manifest.yaml...), if present. */
export function rootFile(entries: Entry[], name: string): string | undefined {
  const entry = entries.find((e) => e.path === name && e.type === 'file');
  return entry?.data?.toString('utf8');
}
