// The part of yauzl 3 (https://github.com/thejoshwolfe/yauzl) that charm-zip.ts uses; the
// package ships no types.
declare module 'yauzl' {
  import type { EventEmitter } from 'node:events';
  import type { Readable } from 'node:stream';

  export interface Entry {
    fileName: string;
    /** Unix mode and file type in the high 16 bits when made on Unix (version made by 3). */
    externalFileAttributes: number;
    versionMadeBy: number;
    uncompressedSize: number;
    compressedSize: number;
  }

  export interface ZipFile extends EventEmitter {
    entryCount: number;
    readEntry(): void;
    openReadStream(entry: Entry, callback: (err: Error | null, stream: Readable) => void): void;
    close(): void;
  }

  export interface Options {
    lazyEntries?: boolean;
    decodeStrings?: boolean;
    validateEntrySizes?: boolean;
    strictFileNames?: boolean;
  }

  export function fromBuffer(buffer: Buffer, options: Options, callback: (err: Error | null, zipfile: ZipFile) => void): void;

  const yauzl: { fromBuffer: typeof fromBuffer };
  export default yauzl;
}
