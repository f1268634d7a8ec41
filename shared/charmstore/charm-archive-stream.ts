// A charm archive read as it streams (a tar.gz uploaded to the charm store, up to
// MAX_CHARM_ARCHIVE_BYTES): gunzipped and walked header by header, the files' data skipped, so
// memory does not grow with the archive, and held to the bounds of ./charm-archive-rules.ts as it
// goes (entries, bytes, path length and depth), so a bomb is refused as it crosses one. It yields the entry list that readCharmArchive
// (./charm-archive.ts) would, without data, for the same checks (unsafeLink, entryBeneathSymlink,
// duplicateEntry), and the sha256 of the bytes it read.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { MAX_CHARM_TAR_BYTES } from './charm-archive.js';
import { ArchiveBudget, expandsTooMuch } from './charm-archive-rules.js';
import { TAR_BLOCK } from './tar-blocks.js';
import { headerSize, headerType, isMetadataType, TarEntryDecoder, type Entry } from './tar-entry-decoder.js';

/** A charm archive as the store keeps it, compressed, at most: what the CLI uploads and agents download. */
export const MAX_CHARM_ARCHIVE_BYTES = 2 ** 30;
/** A pax record or GNU long name describes one path: a megabyte is already absurd. */
const MAX_METADATA_BYTES = 2 ** 20;

export interface StreamedCharmArchive {
  /** The entries, without data. */
  entries: Entry[];
  /** The sha256 of the compressed bytes read, hex. */
  sha256: string;
  bytes: number;
}

const padded = (size: number) => Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;

/**
 * What a walk does with each entry as it streams past: an unpacker writes it (./charm-unpack.ts).
 * Each call is awaited before the walk reads on, so a slow disk holds the stream back.
 */
export interface TarVisitor {
  entry(entry: Omit<Entry, 'data'>): Promise<void>;
  /** The next piece of the current file's data. */
  data(chunk: Buffer): Promise<void>;
  /** The current entry's data is complete. */
  end(): Promise<void>;
}

/** Walks tar blocks as they come: headers decoded, metadata records collected, file data skipped or visited. */
class TarWalker {
  /** Bounded by the budget's entries: an archive of millions of empty headers is refused at the bound, not listed. */
  readonly entries: Entry[] = [];
  private readonly decoder = new TarEntryDecoder();
  private readonly budget = new ArchiveBudget();
  private header = Buffer.alloc(TAR_BLOCK);
  private headerFilled = 0;
  /** The current entry's data still to come, handed to the visitor if the entry is one it was told of. */
  private dataLeft = 0;
  private visiting = false;
  /** Padding after the data, skipped. */
  private skip = 0;
  /** A metadata record being collected: its type, its data so far, and how much of it to keep. */
  private metadata: { type: string; chunks: Buffer[]; have: number; size: number; total: number } | undefined;
  private ended = false;
  private tarBytes = 0;

  constructor(
    private readonly maxTarBytes: number,
    private readonly visitor?: TarVisitor,
  ) {}

  async push(input: Buffer): Promise<void> {
    this.tarBytes += input.length;
    if (this.tarBytes > this.maxTarBytes) throw expandsTooMuch(this.maxTarBytes);
    let chunk = input;
    while (chunk.length > 0 && !this.ended) {
      if (this.dataLeft > 0) {
        const n = Math.min(this.dataLeft, chunk.length);
        if (this.visiting) await this.visitor!.data(chunk.subarray(0, n));
        this.dataLeft -= n;
        chunk = chunk.subarray(n);
        if (this.dataLeft === 0) await this.endEntry();
      } else if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length);
        this.skip -= n;
        chunk = chunk.subarray(n);
      } else if (this.metadata) {
        const m = this.metadata;
        const n = Math.min(m.total - m.have, chunk.length);
        m.chunks.push(chunk.subarray(0, n));
        m.have += n;
        chunk = chunk.subarray(n);
        if (m.have === m.total) {
          this.decoder.metadata(m.type, Buffer.concat(m.chunks).subarray(0, m.size));
          this.metadata = undefined;
        }
      } else {
        const n = Math.min(TAR_BLOCK - this.headerFilled, chunk.length);
        chunk.copy(this.header, this.headerFilled, 0, n);
        this.headerFilled += n;
        chunk = chunk.subarray(n);
        if (this.headerFilled === TAR_BLOCK) await this.onHeader();
      }
    }
  }

  private async endEntry(): Promise<void> {
    if (this.visiting) await this.visitor!.end();
    this.visiting = false;
  }

  private async onHeader(): Promise<void> {
    const h = this.header;
    this.header = Buffer.alloc(TAR_BLOCK);
    this.headerFilled = 0;
    if (h.every((b) => b === 0)) {
      this.ended = true;
      return;
    }
    const size = headerSize(h);
    const type = headerType(h);
    if (isMetadataType(type)) {
      if (size > MAX_METADATA_BYTES) throw new Error('charm archive: a pax or long-name record over a megabyte');
      if (size > 0) this.metadata = { type, chunks: [], have: 0, size, total: padded(size) };
      else this.decoder.metadata(type, Buffer.alloc(0));
      return;
    }
    const entry = this.decoder.entry(h);
    if (entry) {
      this.budget.entry(entry.path);
      // Counted from the header, before the data inflates: a bomb is refused as its header passes.
      if (entry.type === 'file') this.budget.data(size);
      this.entries.push(entry);
    }
    if (entry && this.visitor) {
      await this.visitor.entry(entry);
      this.visiting = true;
    }
    // Only a file's data is its content; whatever else claims a size is skipped.
    this.dataLeft = entry?.type === 'file' ? size : 0;
    this.skip = padded(size) - this.dataLeft;
    if (this.dataLeft === 0) await this.endEntry();
  }

  /** At the end of the stream: an entry cut off part way is a truncated archive. */
  finish(): void {
    if (!this.ended && (this.dataLeft > 0 || this.skip > 0 || this.metadata)) throw new Error('charm archive: truncated');
  }
}

/** The entries of a tar.gz read from `source`; throws on anything that is not a well-formed archive. */
export async function readCharmArchiveStream(
  source: AsyncIterable<Uint8Array>,
  options: { maxTarBytes?: number; visitor?: TarVisitor } = {},
): Promise<StreamedCharmArchive> {
  const hash = createHash('sha256');
  let bytes = 0;
  const walker = new TarWalker(options.maxTarBytes ?? MAX_CHARM_TAR_BYTES, options.visitor);
  async function* hashed() {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
      yield chunk;
    }
  }
  // The walker's own error is the one to report: the pipeline answers it with the abort it causes upstream.
  let refusal: unknown;
  try {
    await pipeline(Readable.from(hashed()), createGunzip(), async (tar: AsyncIterable<Buffer>) => {
      try {
        for await (const chunk of tar) await walker.push(chunk);
      } catch (e) {
        refusal = e;
        throw e;
      }
    });
  } catch (e) {
    throw refusal ?? e;
  }
  walker.finish();
  return { entries: walker.entries, sha256: hash.digest('hex'), bytes };
}
