// One set of archive rules (shared/charmstore/charm-archive-rules.ts), judged alike wherever an
// archive is judged: every hostile shape is refused with the same words by the API (an inline
// tar.gz or .charm), by the charm store as it converts a .charm, and by the agent's unpacker; what
// one accepts, all accept. Before, `top/x -> ..` passed the API and failed on every agent.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { receiveCharm } from '../../functions/api/charm-upload.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { unpackCharmArchive } from '#shared/charmstore/charm-unpack.js';
import { charmZipToArchive } from '#shared/charmstore/charm-zip.js';
import { TAR_BLOCK, tarHeader, tarPadding } from '#shared/charmstore/tar-blocks.js';

type Kind = 'file' | 'dir' | 'symlink' | 'hardlink' | 'fifo';
interface Shape {
  name: string;
  kind: Kind;
  /** A file's content, or a link's target. */
  data?: string;
}

const METADATA = 'name: shapes\nseries: [jammy]\n';
const file = (name: string, data = 'x'): Shape => ({ name, kind: 'file', data });
const link = (name: string, target: string): Shape => ({ name, kind: 'symlink', data: target });

const TAR_TYPE: Record<Kind, string> = { file: '0', dir: '5', symlink: '2', hardlink: '1', fifo: '6' };
const tarGz = (shapes: Shape[]): Buffer =>
  gzipSync(
    Buffer.concat([
      ...shapes.flatMap((s) => {
        const data = s.kind === 'file' ? Buffer.from(s.data ?? '') : Buffer.alloc(0);
        const linkName = s.kind === 'symlink' || s.kind === 'hardlink' ? (s.data ?? '') : '';
        return [
          tarHeader(s.name, TAR_TYPE[s.kind], s.kind === 'dir' ? 0o755 : 0o644, data.length, linkName),
          data,
          tarPadding(data.length),
        ];
      }),
      Buffer.alloc(TAR_BLOCK * 2),
    ]),
  );

const ZIP_MODE: Record<Exclude<Kind, 'hardlink'>, number> = { file: 0o100644, dir: 0o040755, symlink: 0o120777, fifo: 0o010644 };
/** A zip built with Python's zipfile, which writes any name and mode asked for. */
function zip(shapes: Shape[]): Buffer {
  const entries = shapes.map((s) => ({
    name: s.kind === 'dir' ? `${s.name}/` : s.name,
    mode: ZIP_MODE[s.kind as Exclude<Kind, 'hardlink'>],
    data: s.data ?? '',
  }));
  const script = `
import io, json, sys, warnings, zipfile
warnings.simplefilter('ignore')
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w') as z:
    for e in json.load(sys.stdin):
        info = zipfile.ZipInfo(e['name'])
        info.create_system = 3
        info.external_attr = e['mode'] << 16
        z.writestr(info, e['data'].encode())
sys.stdout.buffer.write(buf.getvalue())
`;
  return execFileSync('python3', ['-c', script], { input: JSON.stringify(entries) });
}

/** Each hostile shape and the words every call site refuses it with (after `charm archive: `). */
const hostile: [string, Shape[], string][] = [
  ['a symlink to an absolute path', [file('metadata.yaml', METADATA), link('hooks', '/etc')], 'symlink "hooks" leaves the charm'],
  ['a symlink climbing out', [file('metadata.yaml', METADATA), link('x', '../x')], 'symlink "x" leaves the charm'],
  ['one top directory, a link to its parent', [file('top/metadata.yaml', METADATA), link('top/x', '..')], 'symlink "x" leaves the charm'],
  [
    'one top directory, a chain of links out',
    [file('top/metadata.yaml', METADATA), link('top/s', '.'), link('top/up', 's/..')],
    'symlink "up" leaves the charm',
  ],
  ['an entry beneath a symlink', [file('metadata.yaml', METADATA), link('d', '.'), file('d/x')], '"d/x" lies beneath a symlink'],
  ['one path twice', [file('metadata.yaml', METADATA), file('a'), file('a')], '"a" appears twice'],
  ['a path with ..', [file('metadata.yaml', METADATA), file('../evil')], 'unsafe path "../evil"'],
  ['an absolute path', [file('metadata.yaml', METADATA), file('/etc/evil')], 'unsafe path "/etc/evil"'],
  [
    'a fifo',
    [file('metadata.yaml', METADATA), { name: 'pipe', kind: 'fifo' }],
    '"pipe" is a special file (device, fifo or socket), which a charm cannot hold',
  ],
];
/** Zip has no hard links: tar call sites only. */
const hardLink: [string, Shape[], string] = [
  'a hard link',
  [file('metadata.yaml', METADATA), { name: 'h', kind: 'hardlink', data: 'metadata.yaml' }],
  '"h" is a hard link, which a charm cannot hold',
];
const accepted: [string, Shape[]][] = [
  ['links inside the charm', [file('metadata.yaml', METADATA), file('dispatch'), link('hooks/install', '../dispatch')]],
  ['one top directory with links inside it', [file('top/metadata.yaml', METADATA), file('top/dispatch'), link('top/install', 'dispatch')]],
];

const ZIP_READER_REFUSES = new Set(['unsafe path "../evil"', 'unsafe path "/etc/evil"']);
const ZIP_READER_WORDS = '(invalid relative path: \\.\\./evil|absolute path: /etc/evil)';

const temp = () => mkdtempSync(join(tmpdir(), 'archive-rules-'));

/** Each call site: judge the archive, resolving when it is accepted, rejecting with its refusal. */
const callSites: { name: string; format: 'tar' | 'zip'; judge: (archive: Buffer) => Promise<unknown> }[] = [
  {
    name: 'the API, an inline tar.gz',
    format: 'tar',
    judge: async (archive) => {
      const dir = temp();
      try {
        return await receiveCharm(localCharmStore(dir), { metadata: METADATA, archive: archive.toString('base64') });
      } catch (e) {
        expect(readdirSync(dir)).toEqual([]); // a refused archive is not kept
        throw e;
      }
    },
  },
  {
    name: 'the API, an inline .charm',
    format: 'zip',
    judge: (archive) => receiveCharm(localCharmStore(temp()), { metadata: METADATA, archive: archive.toString('base64') }),
  },
  { name: 'the charm store, converting a .charm', format: 'zip', judge: (archive) => charmZipToArchive(archive) },
  {
    name: "the agent's unpacker",
    format: 'tar',
    judge: async (archive) => {
      const root = temp();
      const dest = join(root, 'charm');
      try {
        return await unpackCharmArchive(archive, dest);
      } finally {
        // Whatever it judged, nothing lands beside the charm.
        expect(readdirSync(root).filter((n) => n !== 'charm')).toEqual([]);
      }
    },
  },
];

describe.each(callSites)('$name', ({ format, judge }) => {
  const pack = format === 'tar' ? tarGz : zip;
  const shapes = format === 'tar' ? [...hostile, hardLink] : hostile;

  it.each(shapes)('refuses %s', async (_what, entries, refusal) => {
    // The zip reader (yauzl) refuses `..` and absolute names itself, before the rules see them.
    const words = format === 'zip' && ZIP_READER_REFUSES.has(refusal) ? ZIP_READER_WORDS : escape(refusal);
    await expect(judge(pack(entries))).rejects.toThrow(new RegExp(`^(invalid )?charm archive: ${words}$`));
  });

  it.each(accepted)('accepts %s', async (_what, entries) => {
    await expect(judge(pack(entries))).resolves.not.toThrow();
  });
});

it('the unpacker writes a charm packed with one top directory as if packed from inside it, links kept', async () => {
  const dest = join(temp(), 'charm');
  await unpackCharmArchive(tarGz(accepted[1]![1]), dest);
  expect(existsSync(join(dest, 'metadata.yaml'))).toBe(true);
  expect(readlinkSync(join(dest, 'install'))).toBe('dispatch');
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
