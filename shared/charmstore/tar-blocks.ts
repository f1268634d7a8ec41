// The blocks of a ustar archive, as POSIX pax defines them: a 512-byte header per entry, its data
// padded to whole blocks, and pax records for names or link targets too long for the header. The
// charm archive writer (charm-archive.ts) builds its tar.gz from these; the archive fuzzer builds
// hostile ones from the same blocks, so both speak exactly the format the reader accepts.
// Format: https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html#tag_20_92_13_06

export const TAR_BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** A pax record `<len> key=value\n`, its length counting itself. */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

/** An entry's header; `type` is the tar type flag ('0' file, '5' directory, '2' symlink, ...). */
export function tarHeader(name: string, type: string, mode: number, size: number, linkName = ''): Buffer {
  const h = Buffer.alloc(TAR_BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode & 0o7777, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(0, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(type, 156, 'ascii');
  h.write(linkName, 157, 100, 'utf8');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Zeros from `size` bytes of data up to the next whole block. */
export const tarPadding = (size: number) => Buffer.alloc((TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK);
