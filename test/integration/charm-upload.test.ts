// Charms by upload: `charm-upload` hands out where to PUT an archive, the local API server takes
// the PUT only with the length and sha256 signed (embedded/charm-files.ts), and deploy or
// upgrade-charm with `charm.upload` checks the upload as it streams before keeping it
// (functions/api/uploaded-charm.ts). Anything missing, invalid or hostile is refused, and
// nothing changes: no application, no archive kept.
import { createHash } from 'node:crypto';
import { existsSync, utimesSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packEntries } from '#shared/charmstore/charm-archive.js';
import { UPLOAD_KEPT_MS, type LocalCharmStore } from '#shared/charmstore/local-charm-store.js';
import { signLocalUrl } from '#shared/charmstore/signed-local-url.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { startTestApiServer, type TestApiServer } from '../support/api-handler.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

const MYSQL = 'name: mysql\nseries: [jammy]\nprovides:\n  server: mysql\n';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const charmArchive = (extra = '') =>
  packEntries([
    { path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(MYSQL) },
    { path: 'hooks/install', type: 'file', mode: 0o755, data: Buffer.from(`#!/bin/sh\necho ${extra}\n`) },
  ]);

let store: Store;
let charms: LocalCharmStore;
let server: TestApiServer;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  server = await startTestApiServer(store);
  charms = server.charms;
});

afterEach(() => server.close());

const call = (op: string, body: unknown) => server.call(op, body);

async function uploadTarget(bytes: Buffer): Promise<{ url: string; headers: Record<string, string> }> {
  const res = await call('charm-upload', { sha256: sha256(bytes), size: bytes.length });
  expect(res.status).toBe(200);
  return res.body as never;
}

const put = (url: string, headers: Record<string, string>, body: Buffer) =>
  fetch(new URL(url, server.url), { method: 'PUT', headers, body: new Uint8Array(body) });

async function upload(bytes: Buffer): Promise<string> {
  const { url, headers } = await uploadTarget(bytes);
  const res = await put(url, headers, bytes);
  expect(res.status, await res.clone().text()).toBe(200);
  return sha256(bytes);
}

const errorOf = async (res: Response) => ((await res.json()) as { error: { message: string } }).error.message;

describe('deploy by upload', () => {
  it('deploys a charm uploaded beforehand, and keeps the upload as its archive', async () => {
    const archive = charmArchive();
    const key = await upload(archive);
    expect(existsSync(charms.uploadPath(key))).toBe(true);
    const res = await call('deploy', { charm: { metadata: MYSQL, upload: key } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await getApplication(store, 'mysql'))?.charmArchive).toBe(key);
    expect(await charms.get(key)).toEqual(archive);
    expect(existsSync(charms.uploadPath(key))).toBe(false);
  });

  it('upgrades a charm by upload', async () => {
    expect((await call('deploy', { charm: { metadata: MYSQL, upload: await upload(charmArchive()) } })).status).toBe(200);
    const next = await upload(charmArchive('v2'));
    const res = await call('upgrade-charm', { application: 'mysql', charm: { metadata: MYSQL, upload: next } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await getApplication(store, 'mysql'))?.charmArchive).toBe(next);
  });

  describe('refuses, changing nothing', () => {
    async function expectRefused(charm: Record<string, unknown>, message: string | RegExp) {
      const before = await dumpTable(store);
      const res = await call('deploy', { charm: { metadata: MYSQL, ...charm } });
      expect(res.status).toBe(400);
      expect(res.body.error?.message).toMatch(message);
      expect(await dumpTable(store)).toEqual(before);
    }

    it('an upload that never arrived', async () => {
      const missing = 'f'.repeat(64);
      await expectRefused(
        { upload: missing },
        `no charm upload with sha256 ${missing}: ask charm-upload for a URL and PUT the archive first`,
      );
      expect(existsSync(charms.archivePath(missing))).toBe(false);
    });

    it('a hostile tar.gz (a symlink out of the charm), keeping no archive', async () => {
      const hostile = packEntries([
        { path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(MYSQL) },
        { path: 'hooks', type: 'symlink', mode: 0o777, linkTarget: '../../etc' },
      ]);
      const key = await upload(hostile);
      expect(existsSync(charms.uploadPath(key))).toBe(true);
      await expectRefused({ upload: key }, 'invalid charm archive: symlink "hooks" leaves the charm');
      expect(existsSync(charms.archivePath(key))).toBe(false);
      // Deleted at once: a refused upload is not kept.
      expect(existsSync(charms.uploadPath(key))).toBe(false);
    });

    it('an upload never deployed is deleted after a day, as the AWS bucket expires it', async () => {
      const stale = await upload(packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(MYSQL) }]));
      const fresh = await upload(packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(`${MYSQL}\n`) }]));
      const dayAndMinuteAgo = new Date(Date.now() - UPLOAD_KEPT_MS - 60_000);
      utimesSync(charms.uploadPath(stale), dayAndMinuteAgo, dayAndMinuteAgo);
      await charms.uploadTarget('b'.repeat(64), 10);
      expect(existsSync(charms.uploadPath(stale))).toBe(false);
      expect(existsSync(charms.uploadPath(fresh))).toBe(true);
    });

    it('a file beneath a symlink, and a name given twice', async () => {
      const beneath = packEntries([
        { path: 'd', type: 'symlink', mode: 0o777, linkTarget: '.' },
        { path: 'd/x', type: 'file', mode: 0o644, data: Buffer.from('x') },
      ]);
      await expectRefused({ upload: await upload(beneath) }, 'invalid charm archive: "d/x" lies beneath a symlink');
      const twice = packEntries([
        { path: 'a', type: 'file', mode: 0o644, data: Buffer.from('1') },
        { path: 'a', type: 'file', mode: 0o644, data: Buffer.from('2') },
      ]);
      await expectRefused({ upload: await upload(twice) }, 'invalid charm archive: "a" appears twice');
    });

    it('bytes that are no tar.gz, and a zip, with a message to upload a tar.gz', async () => {
      await expectRefused({ upload: await upload(Buffer.from('not an archive at all')) }, /^invalid charm archive: /);
      const zip = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100)]);
      await expectRefused(
        { upload: await upload(zip) },
        'the uploaded charm is a zip (a .charm): convert it to a tar.gz and upload that (the drover CLI does)',
      );
    });

    it('an archive given both inline and by upload', async () => {
      const archive = charmArchive();
      await expectRefused({ upload: await upload(archive), archive: archive.toString('base64') }, /^the charm is given twice/);
    });
  });
});

describe('the local upload URL', () => {
  it('refuses bytes whose sha256 is not the one signed, and keeps nothing', async () => {
    const archive = charmArchive();
    const { url, headers } = await uploadTarget(archive);
    const other = Buffer.from(archive);
    other[other.length - 1]! ^= 1;
    const res = await put(url, headers, other);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe(
      `the upload's sha256 is ${sha256(other)}, not ${sha256(archive)} as signed: upload the archive the URL was made for`,
    );
    expect(existsSync(charms.uploadPath(sha256(archive)))).toBe(false);
  });

  it('refuses another length than the one signed', async () => {
    const archive = charmArchive();
    const { url, headers } = await uploadTarget(archive);
    // fetch sends the length of what it sends (it refuses to send a length that is not the body's).
    const { 'content-length': _signed, ...others } = headers;
    const res = await put(url, others, archive.subarray(1));
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe(
      `the upload must be sent with content-length ${archive.length}, the size it was signed for (got ${archive.length - 1})`,
    );
    expect(existsSync(charms.uploadPath(sha256(archive)))).toBe(false);
  });

  it('refuses a changed signature, another size than signed, and an expired URL', async () => {
    const archive = charmArchive();
    const key = sha256(archive);
    const { url, headers } = await uploadTarget(archive);
    const flipped = url.replace(/signature=(.)/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`);
    const resized = url.replace(`size=${archive.length}`, `size=${archive.length + 1}`);
    for (const changed of [flipped, resized]) {
      const res = await put(changed, headers, archive);
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toMatch(/^permission denied: the URL is not signed by this controller/);
    }
    const expired = signLocalUrl(
      charms.urlKey,
      'PUT',
      `/charm-uploads/${key}`,
      { size: String(archive.length) },
      { now: new Date(Date.now() - 3_600_000) },
    );
    const res = await put(expired, headers, archive);
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toBe('permission denied: the URL has expired; ask the API for a new one');
    expect(existsSync(charms.uploadPath(key))).toBe(false);
  });

  it('is not a download URL, nor a download URL an upload one', async () => {
    const archive = charmArchive();
    const { url, headers } = await uploadTarget(archive);
    expect((await fetch(new URL(url, server.url))).status).toBe(405);
    const key = await upload(archive);
    await call('deploy', { charm: { metadata: MYSQL, upload: key } });
    const download = await charms.downloadUrl(key);
    const res = await put(download, headers, archive);
    expect(res.status).toBe(405);
  });

  it('refuses sizes over the bound in charm-upload', async () => {
    const res = await call('charm-upload', { sha256: 'a'.repeat(64), size: 2 ** 30 + 1 });
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toMatch(/^invalid charm-upload request: .*size/);
  });
});
