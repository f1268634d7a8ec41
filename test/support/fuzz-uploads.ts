// Hostile uploads for the API fuzzers (test/fuzz/api.fuzz.test.ts, test/soak/controller-under-fuzz.soak.ts):
// an archive (a valid charm, links and names out of the root, a zip with `../` names, a 1 MB gzip
// that inflates to 1 GiB, 8 million empty tar headers, random or cut-off bytes), PUT to the URL
// `charm-upload` signs as a client would, or wrongly (cut off, another length or checksum, another
// content type, a forged signature, chunked), then named by the request that adopts it: deploy,
// upgrade-charm, deploy --resource, attach-resource; or sent inline, base64, in the deploy itself.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { packEntries } from '#shared/charmstore/charm-archive.js';
import { TAR_BLOCK, tarHeader } from '#shared/charmstore/tar-blocks.js';
import { hostileTarGz, rawEntries } from './fuzz-archives.js';

const MiB = 2 ** 20;

export type ArchiveKind = 'charm' | 'hostile-tar' | 'zip-slip' | 'gzip-bomb' | 'empty-headers' | 'random' | 'cut-gzip';
export type PutShape = 'exact' | 'truncated' | 'longer-length' | 'chunked' | 'wrong-checksum' | 'text-content-type' | 'forged' | 'post';
export type Adoption = 'deploy' | 'upgrade-charm' | 'deploy-resource' | 'attach-resource' | 'inline';

export interface UploadCase {
  archive: ArchiveKind;
  /** For a hostile tar: its entries' seed. */
  entriesSeed: number;
  put: PutShape;
  adoption: Adoption;
}

export const uploadCases: fc.Arbitrary<UploadCase> = fc.record({
  archive: fc.constantFrom<ArchiveKind>(
    'charm',
    'hostile-tar',
    'hostile-tar',
    'zip-slip',
    'gzip-bomb',
    'empty-headers',
    'random',
    'cut-gzip',
  ),
  entriesSeed: fc.integer(),
  put: fc.oneof(
    { weight: 4, arbitrary: fc.constant<PutShape>('exact') },
    {
      weight: 3,
      arbitrary: fc.constantFrom<PutShape>(
        'truncated',
        'longer-length',
        'chunked',
        'wrong-checksum',
        'text-content-type',
        'forged',
        'post',
      ),
    },
  ),
  adoption: fc.constantFrom<Adoption>('deploy', 'upgrade-charm', 'deploy-resource', 'attach-resource', 'inline'),
});

export const describeUpload = (c: UploadCase) => `upload of ${c.archive} (${c.put} PUT), then ${c.adoption}`;

const METADATA = 'name: up\nsummary: s\ndescription: d\nseries: [jammy]\n';

let gzipBomb: Buffer | undefined;
let emptyHeaders: Buffer | undefined;
let zipSlip: Buffer | undefined;

/**
 * A 1 MB archive that inflates to 1 GiB: one gzip member of a 64 MiB file of zeros, sixteen times
 * over (members concatenate). Built once.
 */
function gzipBombBytes(): Buffer {
  const member = gzipSync(Buffer.concat([tarHeader('zeros', '0', 0o644, 64 * MiB), Buffer.alloc(64 * MiB)]), { level: 1 });
  return (gzipBomb ??= Buffer.concat([...Array.from({ length: 16 }, () => member), gzipSync(Buffer.alloc(TAR_BLOCK * 2))]));
}

/** 8 million empty tar headers (about 18 MB gzipped): a member of 100,000, eighty times. Built once. */
function emptyHeadersBytes(): Buffer {
  if (emptyHeaders) return emptyHeaders;
  const member = gzipSync(Buffer.concat(Array.from({ length: 100_000 }, (_, i) => tarHeader(`e${i}`, '0', 0o644, 0))), { level: 1 });
  return (emptyHeaders = Buffer.concat([...Array.from({ length: 80 }, () => member), gzipSync(Buffer.alloc(TAR_BLOCK * 2))]));
}

/** A .charm zip whose entries climb out of the charm's directory, made by Python's zipfile as charmcraft would. Built once. */
function zipSlipBytes(): Buffer {
  const script = `
import io, sys, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w') as z:
    z.writestr('metadata.yaml', 'name: up\\n')
    z.writestr('../../evil', 'x')
    z.writestr('/etc/evil', 'x')
    link = zipfile.ZipInfo('out')
    link.create_system = 3
    link.external_attr = 0o120777 << 16
    z.writestr(link, '../../..')
sys.stdout.buffer.write(buf.getvalue())
`;
  return (zipSlip ??= execFileSync('python3', ['-c', script]));
}

export function archiveBytes(c: UploadCase): Buffer {
  switch (c.archive) {
    case 'charm':
      return packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(METADATA) }]);
    case 'hostile-tar': {
      const [entries] = fc.sample(rawEntries('/tmp/drover-fuzz-outside'), { seed: c.entriesSeed, numRuns: 1 });
      return hostileTarGz(entries!);
    }
    case 'zip-slip':
      return zipSlipBytes();
    case 'gzip-bomb':
      return gzipBombBytes();
    case 'empty-headers':
      return emptyHeadersBytes();
    case 'random':
      return createHash('sha512').update(String(c.entriesSeed)).digest();
    case 'cut-gzip': {
      const whole = packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(METADATA) }]);
      return whole.subarray(0, Math.floor(whole.length / 2));
    }
  }
}

export const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The metadata an adopting request sends: a charm that declares the resource `data`. */
export const UPLOAD_METADATA = `${METADATA}resources:\n  data: {type: file, filename: d.bin}\n`;

/** The request that adopts the upload, as a user op and its body. */
export function adoptionRequest(c: UploadCase, sha256: string, bytes: Buffer, resourceApplication: string): { op: string; body: unknown } {
  switch (c.adoption) {
    case 'deploy':
      return { op: 'deploy', body: { charm: { metadata: UPLOAD_METADATA, upload: sha256 }, name: 'up', numUnits: 0 } };
    case 'upgrade-charm':
      return { op: 'upgrade-charm', body: { application: resourceApplication, charm: { metadata: UPLOAD_METADATA, upload: sha256 } } };
    case 'deploy-resource':
      return { op: 'deploy', body: { charm: { metadata: UPLOAD_METADATA }, name: 'upr', numUnits: 0, resources: { data: sha256 } } };
    case 'attach-resource':
      return { op: 'attach-resource', body: { application: resourceApplication, resources: { data: sha256 } } };
    case 'inline':
      return { op: 'deploy', body: { charm: { metadata: UPLOAD_METADATA, archive: bytes.toString('base64') }, name: 'upi', numUnits: 0 } };
  }
}

export interface PutAnswer {
  /** The status, or undefined when the client gave up first (a cut-off upload). */
  status?: number;
  body: string;
}

/**
 * PUTs `bytes` to the signed `url` (relative to `base`) as `c.put` says. A cut-off upload sends
 * half its bytes and closes the connection, as a client that dies does; its answer is none.
 */
export function putUpload(
  base: string,
  target: { url: string; headers: Record<string, string> },
  bytes: Buffer,
  c: UploadCase,
): Promise<PutAnswer> {
  const url = new URL(target.url, base);
  if (c.put === 'forged') url.searchParams.set('signature', 'f'.repeat(64));
  const headers: Record<string, string> = { ...target.headers };
  if (c.put === 'longer-length') headers['content-length'] = String(bytes.length + 1);
  if (c.put === 'wrong-checksum') headers['x-amz-checksum-sha256'] = Buffer.alloc(32, 7).toString('base64');
  if (c.put === 'text-content-type') headers['content-type'] = 'text/html; charset=utf-8';
  if (c.put === 'chunked') {
    delete headers['content-length'];
    headers['transfer-encoding'] = 'chunked';
  }
  return new Promise<PutAnswer>((resolve, reject) => {
    const req = request(url, { method: c.put === 'post' ? 'POST' : 'PUT', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // A wrong PUT is refused by its headers and the connection closed: the client may be cut off mid-write, before the answer.
    req.on('error', (e: NodeJS.ErrnoException) =>
      c.put === 'truncated' || (c.put !== 'exact' && (e.code === 'EPIPE' || e.code === 'ECONNRESET'))
        ? resolve({ body: String(e) })
        : reject(e),
    );
    if (c.put === 'truncated' || c.put === 'longer-length') {
      // Fewer bytes than declared: the client dies part way.
      req.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => setTimeout(() => req.destroy(), 20));
      return;
    }
    req.end(bytes);
  });
}
