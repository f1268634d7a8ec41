// Agents fetch charm archives by URL (from their view, else agent operation `charm-url`): the
// local API server serves the archive to a URL the API signed (embedded/charm-files.ts), and the
// agent's charm cache downloads it with plain HTTP, checks its sha256 and keeps it
// (agent/charm-cache.ts). A URL changed, signed by another key or expired is refused; a download
// that does not hash to the archive asked for is never kept.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpResponse } from '@smithy/core/protocols';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentApi } from '../../agent/api-client.js';
import { charmCache } from '../../agent/charm-cache.js';
import { nodeHttp, type HttpSend } from '../../agent/http.js';
import { startApiServer, type ApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { createApiHandler } from '../../functions/api/handler.js';
import { localAgentKeyId } from '#shared/api/agent-signing.js';
import { localCharmStore, type LocalCharmStore } from '#shared/charmstore/local-charm-store.js';
import { signLocalUrl } from '#shared/charmstore/signed-local-url.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { testAgentKeys } from '../support/agent-events.js';
import { charms as testCharms } from '../support/charms.js';
import { urlOf } from '../support/http-requests.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

const http = nodeHttp();

let store: Store;
let charms: LocalCharmStore;
let server: ApiServer;
let archive: string;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  const dir = await mkdtemp(join(tmpdir(), 'drover-charm-download-'));
  charms = localCharmStore(join(dir, 'charms'));
  archive = await charms.put(await packCharmDir(fileURLToPath(new URL('../charms/database', import.meta.url))));
  await deploy(store, { charm: testCharms.mysql, numUnits: 1, charmArchive: archive });
  await setAgentCredentialHash(store, '0', hashAgentCredential('secret-0'), 0);
  const handler = createApiHandler({
    store,
    charms,
    auth: { kind: 'token', token: 'user-token' },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
  });
  server = await startApiServer(handler, { direct: charmFileRoutes(charms) });
});

afterEach(() => server.close());

const agentApi = () =>
  createAgentApi({
    url: server.url,
    model: 'default',
    machineId: '0',
    credentials: { accessKeyId: localAgentKeyId('0'), secretAccessKey: 'secret-0' },
    region: 'local',
    attempts: 1,
  });

describe('an agent fetches a charm by URL', () => {
  it('downloads the archive of its unit with plain HTTP, checks it and keeps it', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'drover-charm-cache-'));
    const fetched: string[] = [];
    const recording: HttpSend = (request) => {
      fetched.push(urlOf(request));
      // The URL is the permission: no credential goes with the download.
      expect(Object.keys(request.headers).map((k) => k.toLowerCase())).not.toContain('authorization');
      return http(request);
    };
    const path = await charmCache(agentApi(), cacheDir, { http: recording })('mysql/0', archive);
    expect(path).toBe(join(cacheDir, `${archive}.tar.gz`));
    expect(readFileSync(path)).toEqual(await charms.get(archive));
    expect(fetched).toHaveLength(1);
    expect(fetched[0]).toMatch(new RegExp(`^${server.url}/charm-archives/${archive}\\?expires=\\d+&signature=[0-9a-f]{64}$`));
    expect(readdirSync(cacheDir)).toEqual([`${archive}.tar.gz`]);
    // Kept: a second fetch asks nobody.
    expect(await charmCache(agentApi(), cacheDir, { http: recording })('mysql/0', archive)).toBe(path);
    expect(fetched).toHaveLength(1);
  });

  it('downloads from the URL its view offers, asking no charm-url, until the unit has the charm', async () => {
    const api = agentApi();
    const asked: string[] = [];
    const counting = { url: api.url, call: ((op, body) => (asked.push(op), api.call(op, body))) as typeof api.call };
    const view = await counting.call<{ charmDownloads?: Record<string, string> }>('view', {});
    expect(Object.keys(view.charmDownloads ?? {})).toEqual([archive]);
    const fetched: string[] = [];
    const recording: HttpSend = (request) => (fetched.push(urlOf(request)), http(request));
    const cacheDir = await mkdtemp(join(tmpdir(), 'drover-charm-cache-'));
    const offered = (sha256: string) => view.charmDownloads?.[sha256];
    const path = await charmCache(counting, cacheDir, { offered, http: recording })('mysql/0', archive);
    expect(readFileSync(path)).toEqual(await charms.get(archive));
    expect(fetched).toEqual([new URL(view.charmDownloads![archive]!, server.url).toString()]);
    expect(asked).toEqual(['view']);

    // Once the unit reports the application's charm, its view offers no download.
    const { charmUrl } = (await getApplication(store, 'mysql'))!;
    await counting.call('report', { unit: 'mysql/0', id: 'report-charm', charmUrl });
    expect(await counting.call('view', {})).not.toHaveProperty('charmDownloads');
  });

  it('asks charm-url for a fresh URL when the one its view offered has expired', async () => {
    const api = agentApi();
    const asked: string[] = [];
    const counting = { url: api.url, call: ((op, body) => (asked.push(op), api.call(op, body))) as typeof api.call };
    const expired = signLocalUrl(charms.urlKey, 'GET', `/charm-archives/${archive}`, {}, { now: new Date(Date.now() - 301_000) });
    const cacheDir = await mkdtemp(join(tmpdir(), 'drover-charm-cache-'));
    const path = await charmCache(counting, cacheDir, { offered: () => expired })('mysql/0', archive);
    expect(readFileSync(path)).toEqual(await charms.get(archive));
    expect(asked).toEqual(['charm-url']);
  });

  it('keeps nothing when what arrives is not the archive asked for', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'drover-charm-cache-'));
    const tampered: HttpSend = async () =>
      new HttpResponse({ statusCode: 200, headers: {}, body: Readable.from([Buffer.from('not the charm')]) });
    await expect(charmCache(agentApi(), cacheDir, { http: tampered })('mysql/0', archive)).rejects.toThrow(
      new RegExp(`^charm archive ${archive} arrived corrupted \\(sha256 [0-9a-f]{64}\\)$`),
    );
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it("is refused the URL of a charm its unit's application does not use", async () => {
    const other = 'c'.repeat(64);
    await expect(agentApi().call('charm-url', { unit: 'mysql/0', charm: other })).rejects.toMatchObject({
      status: 403,
      message: `permission denied: charm archive ${other} is not on this agent's machine`,
    });
  });
});

describe('the local charm archive URLs', () => {
  const download = (path: string) => fetch(`${server.url}${path}`);
  const errorOf = async (res: Response) => ((await res.json()) as { error: { message: string } }).error.message;

  it('serve the archive to a URL the API signed', async () => {
    const res = await download(await charms.downloadUrl(archive));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String((await charms.get(archive))!.length));
    expect(Buffer.from(await res.arrayBuffer())).toEqual(await charms.get(archive));
  });

  it('refuse a URL with its signature changed, signed with another key, or for another archive', async () => {
    const good = await charms.downloadUrl(archive);
    const flipped = good.replace(/signature=(.)/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`);
    const otherKey = signLocalUrl('another key', 'GET', `/charm-archives/${archive}`);
    const otherArchive = good.replace(archive, 'd'.repeat(64));
    for (const path of [flipped, otherKey, otherArchive, `/charm-archives/${archive}`]) {
      const res = await download(path);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(await errorOf(res)).toMatch(/^permission denied: the URL is not signed by this controller/);
    }
  });

  it('refuse an expired URL', async () => {
    const expired = signLocalUrl(charms.urlKey, 'GET', `/charm-archives/${archive}`, {}, { now: new Date(Date.now() - 301_000) });
    const res = await download(expired);
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toBe('permission denied: the URL has expired; ask the API for a new one');
  });

  it('answer 404 for a signed URL of an archive the store does not have', async () => {
    const res = await download(await charms.downloadUrl('e'.repeat(64)));
    expect(res.status).toBe(404);
    expect(existsSync(charms.archivePath('e'.repeat(64)))).toBe(false);
  });

  it('take no other method', async () => {
    const res = await fetch(`${server.url}${await charms.downloadUrl(archive)}`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(await charms.get(archive)).toBeDefined();
  });
});
