// Hostile charm archives for the fuzzer (test/fuzz/charm-archive.fuzz.test.ts): tar entries
// written header by header, so an entry may be anything a hostile client can put in a tar —
// absolute and `../` names, links out of the root, link chains, hard links, devices and fifos,
// the same name twice — and a scan of a sandbox for anything written outside a unit's directory.
import fc from 'fast-check';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { paxRecord, TAR_BLOCK, tarHeader, tarPadding } from '#shared/charmstore/tar-blocks.js';

export interface RawEntry {
  name: string;
  /** The tar type flag: '0' file, '5' directory, '2' symlink, '1' hard link, '3'/'4' devices, '6' fifo, '7' contiguous file. */
  type: string;
  mode: number;
  data: string;
  linkName: string;
}

/** The entries as a tar.gz, exactly as given (long names and link targets through pax records). */
export function hostileTarGz(entries: RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    if (Buffer.byteLength(e.name) > 99 || Buffer.byteLength(e.linkName) > 99) {
      const pax = Buffer.from(paxRecord('path', e.name) + paxRecord('linkpath', e.linkName));
      blocks.push(tarHeader('PaxHeader', 'x', 0o644, pax.length, ''), pax, tarPadding(pax.length));
    }
    const data = Buffer.from(e.data);
    const size = e.type === '0' || e.type === '7' ? data.length : 0;
    blocks.push(tarHeader(e.name.slice(0, 99), e.type, e.mode, size, e.linkName.slice(0, 99)));
    if (size) blocks.push(data, tarPadding(size));
  }
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(TAR_BLOCK * 2)]));
}

/** Path segments that make escapes likely: links named like directories, `.`, `..`. */
const SEGMENTS = ['a', 'b', 's1', 'up', 'hooks', '.', '..'];
const segment = fc.constantFrom(...SEGMENTS);

/** A name or link target from those segments: relative, `./`-prefixed, or absolute. */
const pathText = (maxSegments: number, absoluteTo: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(segment, { minLength: 1, maxLength: maxSegments }).map((s) => s.join('/')) },
    { weight: 1, arbitrary: fc.array(segment, { minLength: 1, maxLength: maxSegments }).map((s) => `./${s.join('/')}`) },
    { weight: 1, arbitrary: fc.array(segment, { minLength: 0, maxLength: 3 }).map((s) => [absoluteTo, ...s].join('/')) },
    { weight: 1, arbitrary: fc.constantFrom('', '/', '//', 'a//b', 'a/./b/', 'x'.repeat(150), `${'a/'.repeat(60)}b`) },
  );

/** Few short names, so that entries share names with links and sit beneath them often. */
const shortName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('s1', 'up', 'x') },
  { weight: 1, arbitrary: fc.array(fc.constantFrom('s1', 'up', 'x'), { minLength: 2, maxLength: 3 }).map((s) => s.join('/')) },
);
const shortTarget = fc.oneof(
  { weight: 1, arbitrary: fc.constant('.') },
  { weight: 3, arbitrary: fc.array(fc.constantFrom('s1', 'up', 'x', '.', '..'), { minLength: 1, maxLength: 4 }).map((s) => s.join('/')) },
);

/**
 * Entries of every kind. Most are plausible on their own (a link among a few names, a file, a
 * directory): an archive is refused whole for one absurd entry, so the escapes that need several
 * entries agreeing (a link chain, then a file through it) come from the plausible ones; a few
 * are anything at all — absolute and `../` names, hard links, devices, fifos, odd modes. `outside`
 * is an absolute directory outside the unit's, for absolute names and links.
 */
export function rawEntries(outside: string): fc.Arbitrary<RawEntry[]> {
  const mode = fc.oneof(fc.constantFrom(0o644, 0o755, 0o777, 0o4755, 0o000), fc.nat(0o7777));
  const link = fc.record({
    name: shortName,
    type: fc.constant('2'),
    mode: fc.constant(0o777),
    data: fc.constant(''),
    linkName: shortTarget,
  });
  const file = fc.record({ name: shortName, type: fc.constant('0'), mode, data: fc.string({ maxLength: 20 }), linkName: fc.constant('') });
  const dir = fc.record({ name: shortName, type: fc.constant('5'), mode, data: fc.constant(''), linkName: fc.constant('') });
  const wild = fc.record({
    name: pathText(5, outside),
    type: fc.constantFrom('0', '2', '5', '1', '3', '4', '6', '7', 'g', 'Z'),
    mode,
    data: fc.string({ maxLength: 20 }),
    linkName: pathText(6, outside),
  });
  const entry = fc.oneof(
    { weight: 5, arbitrary: link },
    { weight: 3, arbitrary: file },
    { weight: 1, arbitrary: dir },
    { weight: 1, arbitrary: wild },
  );
  // A charm's metadata first, as a real one has, then the hostile entries.
  return fc
    .array(entry, { minLength: 1, maxLength: 6 })
    .map((es) => [{ name: 'metadata.yaml', type: '0', mode: 0o644, data: 'name: x\n', linkName: '' }, ...es]);
}

/** Every path under `root` (not following links), relative to it, with its kind. */
export async function listTree(root: string): Promise<{ path: string; kind: string; target?: string }[]> {
  const out: { path: string; kind: string; target?: string }[] = [];
  async function walk(dir: string) {
    for (const name of await readdir(dir)) {
      const full = join(dir, name);
      const s = await lstat(full);
      const path = relative(root, full);
      if (s.isSymbolicLink()) out.push({ path, kind: 'symlink', target: await readlink(full) });
      else if (s.isDirectory()) {
        out.push({ path, kind: 'dir' });
        await walk(full);
      } else out.push({ path, kind: s.isFile() ? 'file' : 'special' });
    }
  }
  await walk(root);
  return out;
}

/**
 * What is wrong with the sandbox after an unpack into `dest`: anything written outside `dest`
 * (other than the directories `expected` made beforehand), a special file, or a link under
 * `dest` whose target, followed as the kernel does, leaves it.
 */
export async function sandboxViolations(sandbox: string, dest: string, expected: Set<string>): Promise<string[]> {
  const violations: string[] = [];
  const inside = (p: string) => p === dest || p.startsWith(dest + sep);
  for (const item of await listTree(sandbox)) {
    const full = join(sandbox, item.path);
    if (!inside(full) && !expected.has(item.path)) violations.push(`${item.kind} ${item.path} written outside the unit's directory`);
    if (item.kind === 'special') violations.push(`special file ${item.path}`);
    if (item.kind === 'symlink' && inside(full)) {
      const lands = await followLink(full);
      if (lands !== undefined && !inside(lands)) violations.push(`link ${item.path} → ${item.target} leads to ${lands}, outside the unit`);
    }
  }
  return violations;
}

/** Where a link leads, resolved one component at a time as the kernel does (dangling links too); undefined on a loop. */
async function followLink(link: string, depth = 0): Promise<string | undefined> {
  if (depth > 40) return undefined;
  const target = await readlink(link);
  let at = resolve(link, '..');
  const parts = target.startsWith('/') ? ((at = '/'), target.split('/')) : target.split('/');
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      at = resolve(at, '..');
      continue;
    }
    const next = join(at, part);
    const s = await lstat(next).catch(() => undefined);
    if (s?.isSymbolicLink()) {
      const via = await followLink(next, depth + 1);
      if (via === undefined) return undefined;
      at = via;
    } else at = next;
  }
  return at;
}
