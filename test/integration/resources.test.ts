// Resources through the user API and the charm store: files uploaded as charms are (`charm-upload`
// and a signed PUT), then named by deploy --resource and attach-resource, read as they stream and
// kept once per content beside the charm archives (functions/api/resource-upload.ts); the
// application records the revision it uses of each in one transaction, and resource-get's side
// of the agent API hands the revision and a URL whose bytes match its SHA-384 fingerprint
// (functions/api/resource-download.ts). Anything undeclared or missing is refused and changes nothing.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resourceDownload } from '../../functions/api/resource-download.js';
import type { LocalCharmStore } from '#shared/charmstore/local-charm-store.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { API_TOKEN, startTestApiServer, type TestApiServer } from '../support/api-handler.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';

const TESTAPP = [
  'name: testapp',
  'series: [jammy]',
  'resources:',
  '  test-file: {type: file, filename: test-file.tar}',
  '  other: {type: file, filename: other.bin}',
  '  image: {type: oci-image}',
  '',
].join('\n');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const sha384 = (bytes: Buffer) => createHash('sha384').update(bytes).digest('hex');

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

/** A file PUT to the store as the CLI does it; its sha256. */
async function upload(bytes: Buffer): Promise<string> {
  const target = await call('charm-upload', { sha256: sha256(bytes), size: bytes.length });
  expect(target.status).toBe(200);
  const { url, headers } = target.body as unknown as { url: string; headers: Record<string, string> };
  const res = await fetch(new URL(url, server.url), { method: 'PUT', headers, body: new Uint8Array(bytes) });
  expect(res.status, await res.clone().text()).toBe(200);
  return sha256(bytes);
}

const deployWith = (resources: Record<string, string>) => call('deploy', { charm: { metadata: TESTAPP }, numUnits: 0, resources });

async function downloaded(name: string): Promise<{ revision: number; bytes: Buffer; fingerprint: string }> {
  const answer = await resourceDownload(store, charms, 'testapp', name);
  const res = await fetch(new URL(answer.url, server.url));
  expect(res.status).toBe(200);
  return { revision: answer.revision, bytes: Buffer.from(await res.arrayBuffer()), fingerprint: answer.fingerprint };
}

describe('deploy --resource', () => {
  it('keeps each file once in the charm store and records its first revision; a resource not given stays absent', async () => {
    const file = Buffer.from('the first file');
    const key = await upload(file);
    const res = await deployWith({ 'test-file': key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const app = await getApplication(store, 'testapp');
    expect(app?.resources).toEqual({
      'test-file': { revision: 1, sha256: key, fingerprint: sha384(file), size: file.length, timestamp: expect.any(String) },
    });
    expect(app?.charmModifiedVersion).toBeUndefined();
    expect(await charms.get(key)).toEqual(file);
    expect(existsSync(charms.uploadPath(key))).toBe(false);
    const got = await downloaded('test-file');
    expect(got).toEqual({ revision: 1, bytes: file, fingerprint: sha384(got.bytes) });
    await expect(resourceDownload(store, charms, 'testapp', 'other')).rejects.toThrow(
      'resource#testapp/other not found: no revision has been uploaded',
    );
    await expect(resourceDownload(store, charms, 'testapp', 'undeclared')).rejects.toThrow('resource "undeclared" not found');
  });

  it('names an empty file without uploading it, and two resources of the same content share one upload', async () => {
    const same = Buffer.from('shared content');
    const key = await upload(same);
    const empty = sha256(Buffer.alloc(0));
    const res = await deployWith({ 'test-file': empty, other: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await downloaded('test-file')).bytes).toEqual(Buffer.alloc(0));
    expect((await getApplication(store, 'testapp'))?.resources?.['test-file']).toMatchObject({
      size: 0,
      fingerprint: sha384(Buffer.alloc(0)),
    });
    expect((await downloaded('other')).bytes).toEqual(same);
  });

  describe('refuses, changing nothing', () => {
    async function expectRefused(resources: Record<string, string>, message: string) {
      const before = await dumpTable(store);
      const res = await deployWith(resources);
      expect(res.status).toBe(400);
      expect(res.body.error?.message).toContain(message);
      expect(await dumpTable(store)).toEqual(before);
    }

    it('a resource the charm does not declare, before reading any upload', async () => {
      const key = await upload(Buffer.from('x'));
      await expectRefused({ nope: key }, 'unrecognized resource "nope"');
      expect(existsSync(charms.uploadPath(key))).toBe(true);
      expect(existsSync(charms.archivePath(key))).toBe(false);
    });

    it('a resource that is not a file', async () => {
      await expectRefused({ image: await upload(Buffer.from('y')) }, 'resource "image" is of type "oci-image"');
    });

    it('an upload that never arrived', async () => {
      await expectRefused({ 'test-file': 'e'.repeat(64) }, `resource "test-file": no upload with sha256 ${'e'.repeat(64)}`);
    });
  });
});

describe('attach-resource', () => {
  it('takes the next revision, moves charmModifiedVersion, and changes nothing when the same content is sent again', async () => {
    expect((await deployWith({ 'test-file': await upload(Buffer.from('v1')) })).status).toBe(200);
    const v2 = Buffer.from('v2, longer');
    const key = await upload(v2);
    const res = await call('attach-resource', { application: 'testapp', resources: { 'test-file': key } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ application: 'testapp', changed: ['test-file'] });
    const app = await getApplication(store, 'testapp');
    expect(app?.charmModifiedVersion).toBe(1);
    expect(await downloaded('test-file')).toEqual({ revision: 2, bytes: v2, fingerprint: sha384(v2) });

    // The request again (a retry after a lost answer): the upload is adopted again, and no revision added.
    const retry = await call('attach-resource', { application: 'testapp', resources: { 'test-file': await upload(v2) } });
    expect(retry.body).toEqual({ application: 'testapp', changed: [] });
    expect(await getApplication(store, 'testapp')).toEqual(app);
  });

  it('refuses an undeclared resource and a missing application, changing nothing', async () => {
    expect((await deployWith({})).status).toBe(200);
    const before = await dumpTable(store);
    const key = await upload(Buffer.from('z'));
    const undeclared = await call('attach-resource', { application: 'testapp', resources: { nope: key } });
    expect(undeclared.body.error?.message).toBe('unrecognized resource "nope"');
    const missing = await call('attach-resource', { application: 'ghost', resources: { 'test-file': key } });
    expect(missing.body.error?.message).toBe('application "ghost" not found');
    expect(await dumpTable(store)).toEqual(before);
    expect(existsSync(charms.archivePath(key))).toBe(false);
  });
});

describe('resources', () => {
  it("answers the charm's declarations and the revisions in use", async () => {
    const key = await upload(Buffer.from('listed'));
    expect((await deployWith({ other: key })).status).toBe(200);
    const res = await fetch(`${server.url}/v1/resources?application=testapp`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    const body = (await res.json()) as { declared: Record<string, unknown>; used: Record<string, { revision: number }> };
    expect(Object.keys(body.declared).sort()).toEqual(['image', 'other', 'test-file']);
    expect(Object.keys(body.used)).toEqual(['other']);
    expect(body.used.other?.revision).toBe(1);
  });
});
