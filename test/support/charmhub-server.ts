// A local stand-in for Charmhub: the parts of its public API the juju client and controller use
// (POST /v2/charms/refresh with install actions, GET /v2/charms/info/<name>, GET /v2/charms/find),
// in the JSON shapes of Juju 3.6's charmhub/transport package, over charms the tests pack. It can
// misbehave on purpose, per download: serve other bytes than announced, cut the body off, or send
// more than it declared, so the controller's checks are tested against a real HTTP server.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseChannel, fullChannel } from '#shared/charmhub/channel.js';
import type { ChApiError, ChBase } from '#shared/charmhub/transport.js';

export type DownloadFault = 'tamper' | 'truncate' | 'oversize' | 'stall';

export interface StoreResource {
  name: string;
  revision: number;
  filename: string;
  content: Buffer;
  fault?: DownloadFault;
}

export interface StoreRevision {
  revision: number;
  /** The .charm file (a zip). */
  file: string;
  /** `ubuntu@22.04`-style bases it runs on. */
  bases: string[];
  /** Channels it is released to: `latest/stable`, `14/edge`, ... */
  channels: string[];
  version?: string;
  /** metadata.yaml, which info's default release carries (relations, subordinate). */
  metadata?: string;
  resources?: StoreResource[];
  fault?: DownloadFault;
}

export interface StoreCharm {
  name: string;
  summary?: string;
  description?: string;
  publisher?: string;
  revisions: StoreRevision[];
}

export interface CharmhubServer {
  url: string;
  /** Downloads served, by path: what a cache must avoid. */
  downloads: Map<string, number>;
  /** Every refresh request's body, in order. */
  refreshes: unknown[];
  close(): Promise<void>;
}

const idOf = (name: string) => createHash('sha256').update(`charm:${name}`).digest('hex').slice(0, 32);
const sha = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');
const baseOf = (text: string, architecture = 'amd64'): ChBase => {
  const [name, channel] = text.split('@') as [string, string];
  return { architecture, name, channel };
};
const sameBase = (a: ChBase, b: ChBase) => a.name === b.name && a.channel.replace(/\/stable$/, '') === b.channel.replace(/\/stable$/, '');

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startCharmhubServer(catalogue: StoreCharm[]): Promise<CharmhubServer> {
  const files = new Map<string, { bytes: Buffer; fault?: DownloadFault }>();
  const downloads = new Map<string, number>();
  const refreshes: unknown[] = [];
  let url = '';

  const charmFile = (charm: StoreCharm, rev: StoreRevision) => {
    const path = `/download/${charm.name}_${rev.revision}.charm`;
    const bytes = readFileSync(rev.file);
    files.set(path, { bytes, ...(rev.fault ? { fault: rev.fault } : {}) });
    return { url: `${url}${path}`, 'hash-sha-256': sha('sha256', bytes), 'hash-sha-384': sha('sha384', bytes), size: bytes.length };
  };
  const resourceOf = (charm: StoreCharm, r: StoreResource) => {
    const path = `/resources/${charm.name}/${r.name}_${r.revision}`;
    files.set(path, { bytes: r.content, ...(r.fault ? { fault: r.fault } : {}) });
    return {
      name: r.name,
      type: 'file',
      revision: r.revision,
      filename: r.filename,
      description: '',
      download: {
        url: `${url}${path}`,
        'hash-sha-256': sha('sha256', r.content),
        'hash-sha-384': sha('sha384', r.content),
        size: r.content.length,
      },
    };
  };
  const entity = (charm: StoreCharm, rev: StoreRevision) => ({
    type: 'charm',
    id: idOf(charm.name),
    name: charm.name,
    license: '',
    publisher: { 'display-name': charm.publisher ?? 'drover tests' },
    summary: charm.summary ?? '',
    version: rev.version ?? String(rev.revision),
    revision: rev.revision,
    bases: rev.bases.map((b) => baseOf(b)),
    download: charmFile(charm, rev),
    resources: (rev.resources ?? []).map((r) => resourceOf(charm, r)),
  });
  /** Every (channel, base) release of a charm, newest revision per pair. */
  const releases = (charm: StoreCharm) => {
    const out: { channel: string; base: string; rev: StoreRevision }[] = [];
    for (const rev of [...charm.revisions].sort((a, b) => b.revision - a.revision))
      for (const channel of rev.channels)
        for (const base of rev.bases) if (!out.some((r) => r.channel === channel && r.base === base)) out.push({ channel, base, rev });
    return out;
  };
  const notFoundName = (name: string): ChApiError => ({ code: 'name-not-found', message: `No charm or bundle with name '${name}'.` });

  function install(action: { name?: string; channel?: string; revision?: number; base?: ChBase | null; 'instance-key': string }) {
    const key = action['instance-key'];
    const charm = catalogue.find((c) => c.name === action.name);
    if (!charm) return { 'instance-key': key, result: 'error', error: notFoundName(action.name ?? '') };
    const wanted = action.base && action.base.name !== 'NA' ? action.base : undefined;
    if (action.revision !== undefined) {
      const rev = charm.revisions.find((r) => r.revision === action.revision);
      if (!rev)
        return { 'instance-key': key, result: 'error', error: { code: 'revision-not-found', message: `No revision ${action.revision}` } };
      return {
        'instance-key': key,
        result: 'install',
        id: idOf(charm.name),
        name: charm.name,
        charm: entity(charm, rev),
        'effective-channel': '',
      };
    }
    const channel = fullChannel(parseChannel(action.channel ?? 'stable'));
    const inChannel = releases(charm).filter((r) => r.channel === channel);
    const allReleases = releases(charm).map((r) => ({ base: baseOf(r.base), channel: r.channel }));
    if (!wanted) {
      const bases = [...new Set(inChannel.map((r) => r.base))];
      if (bases.length > 1)
        return {
          'instance-key': key,
          result: 'error',
          error: { code: 'invalid-charm-base', message: 'Invalid base', extra: { 'default-bases': bases.map((b) => baseOf(b)) } },
        };
    }
    const hit = inChannel.find((r) => !wanted || sameBase(baseOf(r.base), wanted));
    if (!hit)
      return {
        'instance-key': key,
        result: 'error',
        error: { code: 'revision-not-found', message: 'No revision was found in the Store.', extra: { releases: allReleases } },
      };
    return {
      'instance-key': key,
      result: 'install',
      id: idOf(charm.name),
      name: charm.name,
      charm: entity(charm, hit.rev),
      'effective-channel': channel,
    };
  }

  function channelMap(charm: StoreCharm) {
    return releases(charm).map((r) => {
      const c = parseChannel(r.channel);
      return {
        channel: { name: r.channel, base: baseOf(r.base), 'released-at': '2025-01-01T00:00:00Z', risk: c.risk, track: c.track || 'latest' },
        revision: {
          revision: r.rev.revision,
          version: r.rev.version ?? String(r.rev.revision),
          bases: r.rev.bases.map((b) => baseOf(b)),
          'created-at': '2025-01-01T00:00:00Z',
          download: { size: readFileSync(r.rev.file).length },
        },
      };
    });
  }

  function serveFile(path: string, res: ServerResponse): void {
    const file = files.get(path);
    if (!file) return send(res, 404, { 'error-list': [{ code: 'not-found', message: 'not found' }] });
    downloads.set(path, (downloads.get(path) ?? 0) + 1);
    const { bytes } = file;
    switch (file.fault) {
      case 'tamper': {
        const other = Buffer.from(bytes);
        other[other.length - 1] = other[other.length - 1]! ^ 0xff;
        res.writeHead(200, { 'content-length': other.length });
        return void res.end(other);
      }
      case 'truncate':
        res.writeHead(200, { 'content-length': bytes.length });
        res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
        return void res.destroy();
      case 'oversize':
        res.writeHead(200);
        return void res.end(Buffer.concat([bytes, Buffer.alloc(1024 * 1024)]));
      case 'stall':
        res.writeHead(200, { 'content-length': bytes.length });
        return void res.write(bytes.subarray(0, 10));
      default:
        res.writeHead(200, { 'content-length': bytes.length });
        res.end(bytes);
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '/', url);
      const path = target.pathname;
      if (req.method === 'POST' && path === '/v2/charms/refresh') {
        const body = JSON.parse(await readBody(req)) as { actions: Parameters<typeof install>[0][] };
        refreshes.push(body);
        return send(res, 200, { results: body.actions.map(install) });
      }
      if (req.method === 'GET' && path.startsWith('/v2/charms/info/')) {
        const name = decodeURIComponent(path.slice('/v2/charms/info/'.length));
        const charm = catalogue.find((c) => c.name === name);
        if (!charm) return send(res, 404, { 'error-list': [notFoundName(name)] });
        const map = channelMap(charm);
        const wanted = target.searchParams.get('channel');
        const preferred = map.find((m) => m.channel.name === fullChannel(parseChannel(wanted ?? 'stable'))) ?? map[0];
        const rev = charm.revisions.find((r) => r.revision === preferred?.revision.revision);
        return send(res, 200, {
          type: 'charm',
          id: idOf(charm.name),
          name: charm.name,
          result: {
            summary: charm.summary ?? '',
            description: charm.description ?? '',
            publisher: { 'display-name': charm.publisher ?? 'drover tests' },
            'store-url': `${url}/${charm.name}`,
            license: '',
          },
          'channel-map': map,
          ...(preferred && rev
            ? {
                'default-release': { channel: preferred.channel, revision: { ...preferred.revision, 'metadata-yaml': rev.metadata ?? '' } },
              }
            : {}),
        });
      }
      if (req.method === 'GET' && path === '/v2/charms/find') {
        const q = target.searchParams.get('q') ?? '';
        const results = catalogue
          .filter((c) => c.name.includes(q))
          .map((c) => {
            const first = channelMap(c).find((m) => m.channel.name === 'latest/stable') ?? channelMap(c)[0];
            return {
              type: 'charm',
              id: idOf(c.name),
              name: c.name,
              result: {
                summary: c.summary ?? '',
                publisher: { 'display-name': c.publisher ?? 'drover tests' },
                'store-url': `${url}/${c.name}`,
              },
              ...(first ? { 'default-release': first } : {}),
            };
          });
        return send(res, 200, { results });
      }
      if (req.method === 'GET' && (path.startsWith('/download/') || path.startsWith('/resources/'))) return serveFile(path, res);
      send(res, 404, { 'error-list': [{ code: 'not-found', message: `no route ${req.method} ${path}` }] });
    })().catch((e: unknown) => send(res, 500, { 'error-list': [{ code: 'api-error', message: String(e) }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    downloads,
    refreshes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
