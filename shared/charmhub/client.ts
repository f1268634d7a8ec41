// A Charmhub client: the three queries the juju client and controller make (refresh with an
// install action, info, find), against any server that speaks Charmhub's public API
// (https://api.charmhub.io/docs/, as Juju 3.6's charmhub package calls it:
// https://github.com/juju/juju/tree/3.6/charmhub). The base URL is the model's `charmhub-url`.
// Every request is bounded in time; answers are bounded in size, as a store is trusted no
// further than the network between.
import { invalidArgument } from '../domain/errors.js';
import type { ChApiError, ChBase, FindResponses, InfoResponse, RefreshRequest, RefreshResponses, RefreshResult } from './transport.js';

/** Juju asks for these fields of a refresh's entity (charmhub/refresh.go, defaultRefreshFields). */
export const REFRESH_FIELDS = [
  'bases',
  'download',
  'id',
  'license',
  'name',
  'publisher',
  'resources',
  'revision',
  'summary',
  'type',
  'version',
];
const REVISION_FIELDS = ['bases', 'config-yaml', 'created-at', 'download.size', 'metadata-yaml', 'revision', 'version'];
const INFO_FIELDS = [
  'type',
  'id',
  'name',
  'result.description',
  'result.license',
  'result.publisher.display-name',
  'result.store-url',
  'result.summary',
  ...REVISION_FIELDS.map((f) => `default-release.revision.${f}`),
  'default-release.channel',
  ...REVISION_FIELDS.filter((f) => !f.endsWith('-yaml')).map((f) => `channel-map.revision.${f}`),
  'channel-map.channel',
];
const FIND_FIELDS = [
  'type',
  'id',
  'name',
  'result.publisher.display-name',
  'result.summary',
  'result.store-url',
  'default-release.channel',
  'default-release.revision.bases',
  'default-release.revision.version',
  'default-release.revision.revision',
];

/** Charmhub's "no value" for a base's name and channel when the client has no preference (Juju's NotAvailable). */
export const NOT_AVAILABLE = 'NA';
/** A JSON answer larger than this is refused: Charmhub's are a few hundred kilobytes at most. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

export interface CharmhubClientOptions {
  /** Each request's bound; a store that does not answer in time is an error, not a hang. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  userAgent?: string;
}

export interface InstallQuery {
  name: string;
  channel?: string;
  revision?: number;
  /** The base wanted; absent: let the store choose (Juju's NA/NA base with the architecture). */
  base?: { name: string; channel: string };
  architecture?: string;
}

/** Charmhub refused or failed a request; `code` is its error code when it gave one. */
export class CharmhubError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly apiError?: ChApiError,
  ) {
    super(message);
  }
}

export interface CharmhubClient {
  readonly url: string;
  refreshInstall(query: InstallQuery): Promise<RefreshResult>;
  info(name: string, options?: { channel?: string }): Promise<InfoResponse>;
  find(query: string): Promise<FindResponses>;
}

export async function readBoundedText(response: Response, maxBytes: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw new CharmhubError(`${what}: answer of ${declared} bytes is larger than the ${maxBytes} allowed`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > maxBytes) throw new CharmhubError(`${what}: answer larger than the ${maxBytes} bytes allowed`);
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

const errorListMessage = (list: ChApiError[] | undefined) =>
  (list ?? [])
    .map((e) => e.message)
    .filter((m) => m !== '')
    .join('\n');

export function charmhubClient(url: string, options: CharmhubClientOptions = {}): CharmhubClient {
  const base = url.replace(/\/+$/, '');
  const fetcher = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const headers = { 'user-agent': options.userAgent ?? 'Juju/3.6.12', accept: 'application/json' };

  async function request<T extends { 'error-list'?: ChApiError[] }>(path: string, init: RequestInit = {}): Promise<T> {
    const target = `${base}${path}`;
    let response: Response;
    try {
      response = await fetcher(target, { ...init, headers: { ...headers, ...init.headers }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      const reason =
        (e as Error).name === 'TimeoutError'
          ? `no answer in ${timeoutMs / 1000}s`
          : ((e as { cause?: Error }).cause ?? (e as Error)).message;
      throw new CharmhubError(`${init.method ?? 'GET'} "${target}": ${reason}`);
    }
    const text = await readBoundedText(response, MAX_JSON_BYTES, target);
    let body: T;
    try {
      body = JSON.parse(text) as T;
    } catch {
      throw new CharmhubError(`${init.method ?? 'GET'} "${target}": HTTP ${response.status}, not JSON`);
    }
    const listed = body['error-list'];
    if (!response.ok || listed?.length) {
      const first = listed?.[0];
      throw new CharmhubError(
        errorListMessage(listed) || `${init.method ?? 'GET'} "${target}": HTTP ${response.status}`,
        first?.code,
        first,
      );
    }
    return body;
  }

  return {
    url: base,
    async refreshInstall(query) {
      if (query.revision !== undefined && (!Number.isInteger(query.revision) || query.revision < 0))
        throw invalidArgument(`invalid revision ${query.revision}`);
      const wantBase: ChBase = {
        architecture: query.architecture ?? 'amd64',
        name: query.base?.name ?? NOT_AVAILABLE,
        channel: query.base?.channel ?? NOT_AVAILABLE,
      };
      const body: RefreshRequest = {
        context: [],
        actions: [
          {
            action: 'install',
            'instance-key': 'drover',
            name: query.name,
            // A revision names one build: Charmhub refuses a channel beside it (Juju sends either).
            ...(query.revision !== undefined
              ? { revision: query.revision }
              : query.channel !== undefined
                ? { channel: query.channel }
                : {}),
            base: wantBase,
          },
        ],
        fields: REFRESH_FIELDS,
      };
      const responses = await request<RefreshResponses>('/v2/charms/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const result = responses.results?.find((r) => r['instance-key'] === 'drover');
      if (!result) throw new CharmhubError(`refresh of "${query.name}": no result`);
      return result;
    },
    async info(name, opts = {}) {
      const params = new URLSearchParams({ fields: INFO_FIELDS.join(',') });
      if (opts.channel !== undefined) params.set('channel', opts.channel);
      return request<InfoResponse>(`/v2/charms/info/${encodeURIComponent(name)}?${params}`);
    },
    async find(q) {
      const params = new URLSearchParams({ q, fields: FIND_FIELDS.join(',') });
      return request<FindResponses>(`/v2/charms/find?${params}`);
    },
  };
}
